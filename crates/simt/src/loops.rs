//! Where a sandboxed lane is in its code's loops, for a lane stopped by a count (its fuel,
//! the check's work budget, the step budget, the spin detector).
//!
//! A lane that loops in registers makes no device call, so the emulator cannot see where
//! it is from its calls. Before a module is compiled, `instrument` rewrites it: each
//! `loop` head of the course's code sets a global the module exports (`__simt_loop`) to
//! the loop's number, so that the global names the innermost loop the lane last started
//! an iteration of (a loop of the standard library's or the `gpu` crate's code is named by
//! the course's loop it was called from). A table
//! (`Loops`) maps each number to the loop's place in the sources: its file, line and
//! function, read from the module's line tables (the course builds the sandbox's modules
//! with `debug = "line-tables-only"`), and what its body does (a device call, a change of
//! any variable), from which a report's hint is chosen. The cost is two instructions per
//! iteration of a loop.

use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use wasmparser::{FunctionBody, Operator, Parser, Payload, TypeRef};

/// The name of the exported global each loop head sets to its loop's number (0: none yet).
pub(crate) const LOOP_GLOBAL: &str = "__simt_loop";

/// A loop of a kernel's code, where a lane was when a limit stopped it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CodeLoop {
    /// Its source file (as the module's line table names it), empty if unknown.
    pub file: String,
    /// The line of its head (0 if unknown).
    pub line: u32,
    /// The function it is in (the innermost, inlined ones included), empty if unknown.
    pub function: String,
    /// Its body (inner loops and the functions it calls included) may make a device call.
    pub device_calls: bool,
    /// Its body changes something: a variable, memory, a global, or calls a function. A
    /// loop whose body changes nothing repeats the same iteration forever once entered.
    pub changes: bool,
}

impl CodeLoop {
    /// A loop that makes no device call and whose iterations change nothing: once
    /// entered, it never ends.
    pub fn endless(&self) -> bool {
        !self.device_calls && !self.changes
    }
}

impl fmt::Display for CodeLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            write!(f, "in a loop")?;
        } else {
            write!(f, "in the loop at {}:{}", self.file, self.line)?;
        }
        if !self.function.is_empty() {
            write!(f, " (fn `{}`)", self.function)?;
        }
        if self.endless() {
            write!(f, ", whose iterations change nothing, so it never ends")?;
        } else if !self.device_calls {
            write!(f, ", which makes no device call")?;
        }
        Ok(())
    }
}

/// The loops of an instrumented module, by number (number `n` is `loops[n - 1]`).
#[derive(Debug, Default)]
pub(crate) struct Loops {
    loops: Vec<CodeLoop>,
}

impl Loops {
    /// The loop of number `id` (what [`LOOP_GLOBAL`] held), if it is one.
    pub(crate) fn get(&self, id: i32) -> Option<&CodeLoop> {
        let i = usize::try_from(id).ok()?.checked_sub(1)?;
        self.loops.get(i)
    }
}

/// What one loop's body does, gathered while its instructions are read.
struct Frame {
    /// The loop's number, or `None` for a block or an `if`.
    id: Option<usize>,
    calls: bool,
    changes: bool,
}

/// Where a loop's line is looked for, as DWARF addresses: its last branch back to its head
/// (a Rust loop's condition, or its `for`, is there), else its first instructions.
#[derive(Clone, Copy, Default)]
struct Probes {
    head: u64,
    back: Option<u64>,
}

/// A module's sections as [`instrument`] needs them.
#[derive(Default)]
struct Parts<'a> {
    imported_funcs: u32,
    imported_globals: u32,
    defined_globals: u32,
    /// Imported functions that are device calls (they park the lane).
    device_imports: Vec<u32>,
    bodies: Vec<FunctionBody<'a>>,
    /// Where the code section's contents start (DWARF's addresses count from there).
    code_start: usize,
    dwarf: Vec<(&'a str, &'a [u8])>,
}

/// `wasm` with each loop head setting [`LOOP_GLOBAL`], and its loops' table. A module
/// this cannot read or rewrite (no global or export section) comes back as it was, with
/// no loops: its lanes run, and a report names no loop.
pub(crate) fn instrument(wasm: &[u8]) -> (Cow<'_, [u8]>, Loops) {
    match rewrite(wasm) {
        Some((bytes, loops)) => (Cow::Owned(bytes), loops),
        None => (Cow::Borrowed(wasm), Loops::default()),
    }
}

fn parts(wasm: &[u8]) -> Option<Parts<'_>> {
    let mut p = Parts::default();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.ok()? {
            Payload::ImportSection(r) => {
                for import in r {
                    let import = import.ok()?;
                    match import.ty {
                        TypeRef::Func(_) => {
                            if import.module == "gpu" && import.name.starts_with("call") {
                                p.device_imports.push(p.imported_funcs);
                            }
                            p.imported_funcs += 1;
                        }
                        TypeRef::Global(_) => p.imported_globals += 1,
                        _ => {}
                    }
                }
            }
            Payload::GlobalSection(r) => p.defined_globals = r.count(),
            Payload::CodeSectionStart { range, .. } => p.code_start = range.start,
            Payload::CodeSectionEntry(body) => p.bodies.push(body),
            Payload::CustomSection(c) if c.name().starts_with(".debug_") => {
                p.dwarf.push((c.name(), c.data()));
            }
            _ => {}
        }
    }
    Some(p)
}

/// The functions (by index) that may make a device call: those that call a device import,
/// or a function that may, or call through a table.
fn device_callers(p: &Parts<'_>) -> Option<Vec<bool>> {
    let n = (p.imported_funcs as usize) + p.bodies.len();
    let mut may = vec![false; n];
    for &i in &p.device_imports {
        may[i as usize] = true;
    }
    let mut callees: Vec<Vec<u32>> = Vec::with_capacity(p.bodies.len());
    for (k, body) in p.bodies.iter().enumerate() {
        let mut mine = Vec::new();
        for op in body.get_operators_reader().ok()? {
            match op.ok()? {
                Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                    mine.push(function_index)
                }
                Operator::CallIndirect { .. } | Operator::ReturnCallIndirect { .. } => {
                    may[p.imported_funcs as usize + k] = true
                }
                _ => {}
            }
        }
        callees.push(mine);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (k, mine) in callees.iter().enumerate() {
            let f = p.imported_funcs as usize + k;
            if !may[f] && mine.iter().any(|&c| may.get(c as usize) == Some(&true)) {
                may[f] = true;
                changed = true;
            }
        }
    }
    Some(may)
}

/// Does `op` change the lane's state (a variable, memory, a global, a table) or call?
fn changes(op: &Operator<'_>) -> bool {
    use Operator::*;
    let name = format!("{op:?}");
    matches!(
        op,
        LocalSet { .. }
            | LocalTee { .. }
            | GlobalSet { .. }
            | Call { .. }
            | CallIndirect { .. }
            | ReturnCall { .. }
            | ReturnCallIndirect { .. }
            | MemoryGrow { .. }
            | MemoryFill { .. }
            | MemoryCopy { .. }
            | MemoryInit { .. }
            | TableSet { .. }
            | TableGrow { .. }
            | TableFill { .. }
            | TableCopy { .. }
            | TableInit { .. }
    ) || name.contains("Store")
        || name.contains("Rmw")
}

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        if done {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Reads an unsigned LEB128 at `*at`, moving past it.
fn read_uleb(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A section's contents with its entry count raised by one and `entry` appended.
fn append_entry(contents: &[u8], entry: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    let count = read_uleb(contents, &mut at)?;
    let mut out = Vec::with_capacity(contents.len() + entry.len() + 5);
    uleb(&mut out, count + 1);
    out.extend_from_slice(&contents[at..]);
    out.extend_from_slice(entry);
    Some(out)
}

fn rewrite(wasm: &[u8]) -> Option<(Vec<u8>, Loops)> {
    let p = parts(wasm)?;
    let may_call = device_callers(&p)?;
    let global = p.imported_globals + p.defined_globals;
    let mut loops = Vec::new();
    let mut heads: Vec<Probes> = Vec::new();
    // Where each loop's first instruction starts in the module (after `loop` and its type).
    let mut inserts: Vec<usize> = Vec::new();
    for body in &p.bodies {
        let mut stack: Vec<Frame> = Vec::new();
        let mut ops = body.get_operators_reader().ok()?;
        while !ops.eof() {
            let (op, at) = ops.read_with_offset().ok()?;
            let after = ops.original_position();
            if let Operator::Br { relative_depth } | Operator::BrIf { relative_depth } = op
                && let Some(i) = stack.len().checked_sub(1 + relative_depth as usize)
                && let Some(id) = stack[i].id
            {
                heads[id - 1].back = Some((at - p.code_start) as u64);
            }
            let inner = stack.last_mut();
            match &op {
                Operator::Loop { .. } => {
                    inserts.push(after);
                    heads.push(Probes {
                        head: (after - p.code_start) as u64,
                        back: None,
                    });
                    loops.push(CodeLoop {
                        file: String::new(),
                        line: 0,
                        function: String::new(),
                        device_calls: false,
                        changes: false,
                    });
                    stack.push(Frame {
                        id: Some(loops.len()),
                        calls: false,
                        changes: false,
                    });
                    continue;
                }
                Operator::Block { .. } | Operator::If { .. } | Operator::TryTable { .. } => {
                    stack.push(Frame {
                        id: None,
                        calls: false,
                        changes: false,
                    });
                    continue;
                }
                Operator::End => {
                    if let Some(done) = stack.pop() {
                        if let Some(id) = done.id {
                            loops[id - 1].device_calls = done.calls;
                            loops[id - 1].changes = done.changes;
                        }
                        if let Some(outer) = stack.last_mut() {
                            outer.calls |= done.calls;
                            outer.changes |= done.changes;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(frame) = inner {
                frame.changes |= changes(&op);
                frame.calls |= match op {
                    Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                        may_call.get(function_index as usize) != Some(&false)
                    }
                    Operator::CallIndirect { .. } | Operator::ReturnCallIndirect { .. } => true,
                    _ => false,
                };
            }
        }
    }
    place(&mut loops, &heads, &p);

    // With line tables, only the loops of the course's code are numbered: a lane in a
    // loop of the standard library or of the `gpu` crate is named in the loop of the
    // course's code it was called from (the last head it passed).
    let placed = loops.iter().any(|l| !l.file.is_empty());
    let mut code = Vec::new();
    uleb(&mut code, p.bodies.len() as u64);
    let mut next = 0;
    for body in &p.bodies {
        let range = body.range();
        let mut out = Vec::with_capacity(range.len() + 16);
        let mut copied = range.start;
        while let Some(&at) = inserts.get(next).filter(|&&at| at < range.end) {
            next += 1;
            if placed && loops[next - 1].file.is_empty() {
                continue;
            }
            out.extend_from_slice(&wasm[copied..at]);
            copied = at;
            out.push(0x41); // i32.const <number>
            sleb(&mut out, next as i64);
            out.push(0x24); // global.set
            uleb(&mut out, u64::from(global));
        }
        out.extend_from_slice(&wasm[copied..range.end]);
        uleb(&mut code, out.len() as u64);
        code.extend_from_slice(&out);
    }

    let global_entry = [0x7f, 0x01, 0x41, 0x00, 0x0b]; // mut i32 = i32.const 0
    let mut export_entry = Vec::new();
    uleb(&mut export_entry, LOOP_GLOBAL.len() as u64);
    export_entry.extend_from_slice(LOOP_GLOBAL.as_bytes());
    export_entry.push(0x03);
    uleb(&mut export_entry, u64::from(global));

    let mut out = Vec::with_capacity(wasm.len());
    out.extend_from_slice(wasm.get(..8)?);
    let mut at = 8;
    let (mut globals, mut exports) = (false, false);
    while at < wasm.len() {
        let id = wasm[at];
        let mut start = at + 1;
        let size = read_uleb(wasm, &mut start)? as usize;
        let end = start.checked_add(size).filter(|&e| e <= wasm.len())?;
        let contents = &wasm[start..end];
        let new: Option<Cow<'_, [u8]>> = match id {
            6 => {
                globals = true;
                Some(Cow::Owned(append_entry(contents, &global_entry)?))
            }
            7 => {
                exports = true;
                Some(Cow::Owned(append_entry(contents, &export_entry)?))
            }
            10 => Some(Cow::Borrowed(&code[..])),
            // The line tables' addresses are those of the code before the rewrite: the
            // table of loops holds what the reports need of them.
            0 if is_dwarf(contents) => None,
            _ => Some(Cow::Borrowed(contents)),
        };
        if let Some(c) = new {
            out.push(id);
            uleb(&mut out, c.len() as u64);
            out.extend_from_slice(&c);
        }
        at = end;
    }
    (globals && exports).then_some((out, Loops { loops }))
}

/// Is this custom section's contents (name first) one of the DWARF sections?
fn is_dwarf(contents: &[u8]) -> bool {
    let mut at = 0;
    let Some(len) = read_uleb(contents, &mut at) else {
        return false;
    };
    contents
        .get(at..at + len as usize)
        .is_some_and(|name| name.starts_with(b".debug_"))
}

/// Fills in each loop's file, line and function from the module's line tables, if it has
/// them: the innermost frame at the loop's first instruction that is in the course's code
/// (not the standard library's, nor the `gpu` crate's iterators).
fn place(loops: &mut [CodeLoop], heads: &[Probes], p: &Parts<'_>) {
    use gimli::{EndianSlice, LittleEndian, SectionId};
    if p.dwarf.is_empty() {
        return;
    }
    let section = |id: SectionId| -> Result<EndianSlice<'_, LittleEndian>, ()> {
        let data = p
            .dwarf
            .iter()
            .find(|(name, _)| *name == id.name())
            .map_or(&[][..], |&(_, d)| d);
        Ok(EndianSlice::new(data, LittleEndian))
    };
    let Ok(dwarf) = gimli::Dwarf::load(section) else {
        return;
    };
    // A file is named as the compiler was given it (as a device call's location names
    // it), without the folder it was built in: the line tables join the two.
    let mut built_in = Vec::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        if let Ok(unit) = dwarf.unit(header)
            && let Some(dir) = unit.comp_dir
        {
            built_in.push(format!("{}/", dir.to_string_lossy()));
        }
    }
    built_in.sort_by_key(|d| std::cmp::Reverse(d.len()));
    built_in.dedup();
    let relative = |file: &str| -> String {
        let file = built_in
            .iter()
            .find_map(|d| file.strip_prefix(d.as_str()))
            .unwrap_or(file);
        file.strip_prefix("./").unwrap_or(file).to_string()
    };
    let Ok(ctx) = addr2line::Context::from_dwarf(dwarf) else {
        return;
    };
    // The frames at an address, innermost first: (file, line, function).
    let frames_at = |addr: u64| {
        let mut out = Vec::new();
        if let Ok(mut frames) = ctx.find_frames(addr).skip_all_loads() {
            while let Ok(Some(frame)) = frames.next() {
                let function = frame
                    .function
                    .as_ref()
                    .and_then(|f| f.demangle().ok())
                    .map(|n| short_name(&n))
                    .unwrap_or_default();
                let Some(loc) = frame.location else { continue };
                let file = relative(loc.file.unwrap_or_default());
                out.push((file, loc.line.unwrap_or(0), function));
            }
        }
        out
    };
    for (l, probes) in loops.iter_mut().zip(heads) {
        // The first instructions of a loop may have no line of their own (line 0), or
        // the line of the function's start: the ones a few bytes on.
        let from_head = probes.head..probes.head + 64;
        for probe in probes.back.into_iter().chain(from_head) {
            let frames = frames_at(probe);
            let ours = frames
                .iter()
                .position(|(file, line, _)| !file.is_empty() && !foreign(file) && *line != 0);
            let Some(k) = ours else { continue };
            let (file, line, mut function) = frames[k].clone();
            // A closure is named by the function it is called from.
            if function.starts_with('{')
                && let Some((_, _, outer)) = frames.get(k + 1)
            {
                function = format!("{outer}::{function}");
            }
            (l.file, l.line, l.function) = (file, line, function);
            break;
        }
    }
}

/// A file of the toolchain's library or of the `gpu` crate: not where a student's loop is.
fn foreign(file: &str) -> bool {
    file.starts_with("<rust>") || file.starts_with("/rustc/") || file.contains("crates/gpu/")
}

/// A function's name as a report shows it: its last path segment, without generic
/// arguments, and a kernel's body by its kernel's name (`<T as Tr>::f::<u32>` → `f`,
/// `__gpu_body_histo` → `histo`, `f::{closure#0}` kept whole).
fn short_name(name: &str) -> String {
    let mut plain = String::new();
    let mut depth = 0u32;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let parts: Vec<&str> = plain.split("::").filter(|p| !p.is_empty()).collect();
    let keep = parts.iter().rposition(|p| !p.starts_with('{')).unwrap_or(0);
    let name = parts.get(keep..).map(|p| p.join("::")).unwrap_or_default();
    name.strip_prefix("__gpu_body_")
        .unwrap_or(&name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_function_and_closures() {
        assert_eq!(short_name("kernels::ch09::histo"), "histo");
        assert_eq!(
            short_name("__gpu_body_histo::{closure#0}"),
            "histo::{closure#0}"
        );
        assert_eq!(short_name("<core::fmt::Formatter>::pad"), "pad");
        assert_eq!(short_name("fold::<usize, f<u8>::{closure#0}>"), "fold");
    }

    /// A module of two functions, each one loop: `f`'s changes nothing (`loop br 0 end`),
    /// `g`'s adds one to a global on every iteration.
    fn two_loops() -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        m.extend([1, 4, 1, 0x60, 0, 0]); // type: () -> ()
        m.extend([3, 3, 2, 0, 0]); // two functions of that type
        m.extend([6, 6, 1, 0x7f, 1, 0x41, 0, 0x0b]); // a mutable i32 global
        m.extend([7, 9, 2, 1, b'f', 0, 0, 1, b'g', 0, 1]); // exports f and g
        let f = [0, 0x03, 0x40, 0x0c, 0, 0x0b, 0x0b];
        let g = [
            0, 0x03, 0x40, 0x23, 0, 0x41, 1, 0x6a, 0x24, 0, 0x0c, 0, 0x0b, 0x0b,
        ];
        m.extend([10, (3 + f.len() + g.len()) as u8, 2, f.len() as u8]);
        m.extend(f);
        m.push(g.len() as u8);
        m.extend(g);
        m
    }

    #[test]
    fn each_loop_head_sets_its_number_where_the_lane_stops() {
        let module = two_loops();
        let (code, loops) = instrument(&module);
        assert!(matches!(code, Cow::Owned(_)), "the module was rewritten");
        wasmparser::validate(&code).expect("the rewritten module is valid");
        let (f, g) = (
            loops.get(1).expect("f's loop"),
            loops.get(2).expect("g's loop"),
        );
        assert!(f.endless() && !f.changes && !f.device_calls, "{f:?}");
        assert!(!g.endless() && g.changes && !g.device_calls, "{g:?}");
        assert_eq!(loops.get(0), None, "0 is no loop");

        let mut config = wasmi::Config::default();
        config.consume_fuel(true);
        let engine = wasmi::Engine::new(&config);
        let module = wasmi::Module::new(&engine, &code[..]).expect("compiles");
        let mut store = wasmi::Store::new(&engine, ());
        let linker = wasmi::Linker::<()>::new(&engine);
        let instance = linker
            .instantiate_and_start(&mut store, &module)
            .expect("instantiates");
        let global = instance.get_global(&store, LOOP_GLOBAL).expect("exported");
        for (name, id) in [("f", 1), ("g", 2)] {
            store.set_fuel(1000).expect("fuel");
            let run = instance
                .get_typed_func::<(), ()>(&store, name)
                .expect("the export");
            let e = run.call(&mut store, ()).expect_err("an endless loop");
            assert_eq!(e.as_trap_code(), Some(wasmi::TrapCode::OutOfFuel));
            assert_eq!(
                global.get(&store).i32(),
                Some(id),
                "stopped in {name}'s loop"
            );
        }
    }

    #[test]
    fn a_module_without_globals_runs_as_it_was() {
        let mut m = two_loops();
        // Drop the global section: the module is left as it was, with no loops.
        let at = m
            .windows(2)
            .position(|w| w == [6, 6])
            .expect("the global section");
        m.drain(at..at + 8);
        let (code, loops) = instrument(&m);
        assert!(matches!(code, Cow::Borrowed(_)));
        assert_eq!(loops.get(1), None);
    }

    #[test]
    fn leb_encodings_read_back() {
        for v in [0u64, 1, 63, 64, 127, 128, 300, 1 << 40] {
            let mut out = Vec::new();
            uleb(&mut out, v);
            let mut at = 0;
            assert_eq!(read_uleb(&out, &mut at), Some(v));
            assert_eq!(at, out.len());
        }
        let mut out = Vec::new();
        sleb(&mut out, 64);
        assert_eq!(
            out,
            [0xc0, 0x00],
            "64 needs a second byte: its sign bit is set"
        );
    }
}
