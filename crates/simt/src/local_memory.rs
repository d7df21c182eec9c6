//! Arrays a kernel indexes at run time on its own stack: what a GPU keeps in local memory.
//!
//! A GPU keeps a thread's array in registers only when every index into it is known once
//! the compiler has unrolled the loops around it; an index that depends on the data (or on
//! a loop whose trip count does) moves the array to local memory, off-chip behind L1.
//! WebAssembly has the same split: locals cannot be indexed, so such an array lives in
//! the lane's stack frame in linear memory. This module reads a kernel's code and counts
//! the loads and stores that reach its stack frame at a run-time offset: an abstract
//! interpretation of each function of the kernel's crate it calls, over values that are
//! constants, loop counters of fixed trip count, data, or the stack pointer plus one of
//! those. A counter of a fixed-count loop with no device call in it is not counted (the
//! GPU's compiler unrolls such a loop, as the reference kernel of 9.10 relies on); one
//! whose loop ends on data, or calls the device, is: the nvptx build agreed on all ten
//! forms of 9.10 compiled to PTX (`notes/local-memory-2026-11-28.md`).

use rustc_hash::FxHashMap;
use wasmparser::{
    BlockType, ContType, FrameKind, FuncType, ModuleArity, Operator, Parser, Payload, RefType,
    SubType, TypeRef, ValType,
};

/// What the analysis knows of one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    /// No value reaches here (unreachable code, or a loop's back edge not yet seen).
    Bottom,
    /// A constant.
    Const(i64),
    /// Computed from constants only, through loops of fixed trip count.
    Fixed,
    /// From a parameter, a load, a call, or a loop whose trip count depends on data.
    Data,
    /// The stack pointer plus a constant.
    Sp(i64),
    /// The stack pointer plus a [`V::Fixed`] offset.
    SpFixed,
    /// The stack pointer plus a [`V::Data`] offset: an array indexed by data.
    SpData,
}

impl V {
    fn is_sp(self) -> bool {
        matches!(self, V::Sp(_) | V::SpFixed | V::SpData)
    }

    /// 0 constant, 1 fixed, 2 data (an address's offset, or a plain value).
    fn rank(self) -> u8 {
        match self {
            V::Bottom | V::Const(_) | V::Sp(_) => 0,
            V::Fixed | V::SpFixed => 1,
            V::Data | V::SpData => 2,
        }
    }

    fn plain(rank: u8) -> V {
        [V::Fixed, V::Fixed, V::Data][rank as usize]
    }

    fn sp(rank: u8) -> V {
        [V::SpFixed, V::SpFixed, V::SpData][rank as usize]
    }

    fn join(a: V, b: V) -> V {
        match (a, b) {
            (V::Bottom, x) | (x, V::Bottom) => x,
            (V::Const(x), V::Const(y)) if x == y => a,
            (V::Sp(x), V::Sp(y)) if x == y => a,
            (V::Sp(_), V::Sp(_)) => V::SpFixed,
            // A local reused for a pointer on one path and another value on the other is
            // the pointer where it is used as one.
            (s, o) | (o, s) if s.is_sp() && !o.is_sp() => s,
            (x, y) if x.is_sp() => V::sp(x.rank().max(y.rank())),
            (x, y) => V::plain(x.rank().max(y.rank()).max(1)),
        }
    }

    /// The value when which path reached it depends on data.
    fn data_chosen(self) -> V {
        match self {
            V::Bottom => V::Bottom,
            x if x.is_sp() => V::SpData,
            _ => V::Data,
        }
    }

    fn add(a: V, b: V, sub: bool) -> V {
        match (a, b) {
            (V::Bottom, _) | (_, V::Bottom) => V::Bottom,
            (V::Const(x), V::Const(y)) => V::Const(if sub {
                x.wrapping_sub(y)
            } else {
                x.wrapping_add(y)
            }),
            (V::Sp(k), V::Const(c)) => V::Sp(if sub {
                k.wrapping_sub(c)
            } else {
                k.wrapping_add(c)
            }),
            (V::Const(c), V::Sp(k)) if !sub => V::Sp(k.wrapping_add(c)),
            (V::Sp(x), V::Sp(y)) if sub => V::Const(x.wrapping_sub(y)),
            (s, o) if s.is_sp() && !o.is_sp() => V::sp(s.rank().max(o.rank())),
            (o, s) if s.is_sp() && !o.is_sp() && !sub => V::sp(s.rank().max(o.rank())),
            (x, y) if x.is_sp() || y.is_sp() => V::Data,
            (x, y) => V::plain(x.rank().max(y.rank()).max(1)),
        }
    }

    /// Any other operation on `args`: data if any is, an address stays one.
    fn other(args: &[V]) -> V {
        if args.contains(&V::Bottom) {
            return V::Bottom;
        }
        let rank = args.iter().map(|v| v.rank()).max().unwrap_or(0).max(1);
        if args.iter().any(|v| v.is_sp()) && args.len() == 1 {
            V::sp(rank)
        } else {
            V::plain(rank)
        }
    }
}

/// One site: a load or store of a kernel's stack frame at a data-dependent offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalSite {
    /// The function it is in, as the module's name section names it.
    pub function: String,
    /// Its byte offset in the module.
    pub offset: usize,
}

/// The module's types and functions, for the operators' arities.
struct Module<'a> {
    types: Vec<SubType>,
    /// Each function's type index, imports first.
    func_types: Vec<u32>,
    imported: u32,
    bodies: Vec<wasmparser::FunctionBody<'a>>,
    names: FxHashMap<u32, String>,
    exports: FxHashMap<String, u32>,
    /// The control stack of the function being read: (block type, kind).
    control: Vec<(BlockType, FrameKind)>,
}

impl ModuleArity for Module<'_> {
    fn sub_type_at(&self, type_idx: u32) -> Option<&SubType> {
        self.types.get(type_idx as usize)
    }
    fn tag_type_arity(&self, _at: u32) -> Option<(u32, u32)> {
        None
    }
    fn type_index_of_function(&self, function_idx: u32) -> Option<u32> {
        self.func_types.get(function_idx as usize).copied()
    }
    fn func_type_of_cont_type(&self, _c: &ContType) -> Option<&FuncType> {
        None
    }
    fn sub_type_of_ref_type(&self, _rt: &RefType) -> Option<&SubType> {
        None
    }
    fn control_stack_height(&self) -> u32 {
        self.control.len() as u32
    }
    fn label_block(&self, depth: u32) -> Option<(BlockType, FrameKind)> {
        let n = self.control.len();
        self.control
            .get(n.checked_sub(depth as usize + 1)?)
            .copied()
    }
}

/// The sites of every kernel of `wasm` (by kernel name: [`crate::wasm::KERNEL_EXPORT_PREFIX`])
/// that has any; a module the analysis cannot read gives none.
pub fn sites_by_kernel(wasm: &[u8]) -> FxHashMap<String, Vec<LocalSite>> {
    let Some(mut m) = read(wasm) else {
        return FxHashMap::default();
    };
    let mut out = FxHashMap::default();
    let kernels: Vec<(String, u32)> = m
        .exports
        .iter()
        .filter_map(|(name, &f)| {
            Some((
                name.strip_prefix(crate::wasm::KERNEL_EXPORT_PREFIX)?
                    .to_string(),
                f,
            ))
        })
        .collect();
    let mut memo: FxHashMap<u32, (Vec<LocalSite>, Vec<u32>)> = FxHashMap::default();
    for (kernel, f) in kernels {
        let mut sites = Vec::new();
        let mut seen = vec![f];
        let mut todo = vec![f];
        while let Some(g) = todo.pop() {
            let (s, callees) = memo
                .entry(g)
                .or_insert_with(|| function(&mut m, g).unwrap_or_default());
            sites.extend(s.iter().cloned());
            for &c in callees.iter() {
                if !seen.contains(&c) && c >= m.imported && own(m.names.get(&c)) {
                    seen.push(c);
                    todo.push(c);
                }
            }
        }
        if !sites.is_empty() {
            out.insert(kernel, sites);
        }
    }
    out
}

/// Is the function of this name the kernel crate's own (not the device API's or the
/// standard library's, whose panic formatting indexes its own stack buffers)?
fn own(name: Option<&String>) -> bool {
    let Some(name) = name else { return false };
    const LIBRARY: [&str; 8] = [
        "_ZN4core",
        "_ZN5alloc",
        "_ZN3std",
        "_ZN3gpu",
        "_ZN17compiler_builtins",
        "_ZN8dlmalloc",
        "_R",
        "__rust",
    ];
    !LIBRARY.iter().any(|p| name.starts_with(p))
        && !name.contains("$u20$as$u20$core..fmt")
        && !name.starts_with("mem")
}

fn read(wasm: &[u8]) -> Option<Module<'_>> {
    let mut m = Module {
        types: Vec::new(),
        func_types: Vec::new(),
        imported: 0,
        bodies: Vec::new(),
        names: FxHashMap::default(),
        exports: FxHashMap::default(),
        control: Vec::new(),
    };
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.ok()? {
            Payload::TypeSection(r) => {
                for group in r {
                    m.types.extend(group.ok()?.into_types());
                }
            }
            Payload::ImportSection(r) => {
                for import in r {
                    if let TypeRef::Func(t) = import.ok()?.ty {
                        m.func_types.push(t);
                        m.imported += 1;
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    m.func_types.push(t.ok()?);
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e.ok()?;
                    if e.kind == wasmparser::ExternalKind::Func {
                        m.exports.insert(e.name.to_string(), e.index);
                    }
                }
            }
            Payload::CodeSectionEntry(body) => m.bodies.push(body),
            Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                    for sub in names.into_iter().flatten() {
                        if let wasmparser::Name::Function(map) = sub {
                            for n in map.into_iter().flatten() {
                                m.names.insert(n.index, n.name.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Some(m)
}

/// A control frame of the function being read.
struct Frame {
    kind: FrameKind,
    /// Operand stack height at entry (below its parameters).
    height: usize,
    /// Values it leaves (its results) and a branch to it carries (a loop's: its params).
    results: usize,
    /// Join of the locals of the branches to its end (a loop: to its head).
    exit: Vec<V>,
    /// Whether a branch taken on data reached `exit`.
    exit_on_data: bool,
    /// An `if`'s locals for its else arm, and whether its condition was data.
    else_state: Option<Vec<V>>,
    cond_data: bool,
    /// A loop's `loop` operator index (its key in the passes' facts).
    loop_id: usize,
    /// A block whose end is followed by a trap (a panic's call and `unreachable`): a
    /// branch to it is a failed check, not a way out of a loop.
    to_trap: bool,
}

/// What a pass learned of each loop (by the index of its `loop` operator).
#[derive(Clone, Default, PartialEq)]
struct LoopFacts {
    back: Vec<V>,
    /// A branch taken on data leaves or continues it.
    on_data: bool,
    /// A branch taken on a constant or a fixed counter does: its trip count has a bound
    /// the compiler knows, and it unrolls it whatever else ends it early.
    bounded: bool,
}

/// The sites of function `f` and the functions it calls.
fn function(m: &mut Module<'_>, f: u32) -> Option<(Vec<LocalSite>, Vec<u32>)> {
    let body = m.bodies.get(f.checked_sub(m.imported)? as usize)?.clone();
    let ty = m.func_types.get(f as usize).copied()?;
    let params = match &m.types.get(ty as usize)?.composite_type.inner {
        wasmparser::CompositeInnerType::Func(t) => t.params().len(),
        _ => return None,
    };
    let mut locals: Vec<V> = vec![V::Data; params];
    for l in body.get_locals_reader().ok()? {
        let (count, _ty): (u32, ValType) = l.ok()?;
        if count > 65_536 {
            return None;
        }
        locals.extend(std::iter::repeat_n(V::Const(0), count as usize));
    }
    // One more slot past the locals: `Bottom` where the code is unreachable.
    locals.push(V::Const(0));
    let mut ops = Vec::new();
    let mut reader = body.get_operators_reader().ok()?;
    while !reader.eof() {
        ops.push(reader.read_with_offset().ok()?);
    }
    let to_trap = trap_ends(&ops);
    let calling = loops_that_call(&ops);
    let mut facts: FxHashMap<usize, LoopFacts> = FxHashMap::default();
    // A few passes reach the fixed point (each loop's back edges known).
    for _ in 0..16 {
        let (next, sites, callees) = pass(m, &ops, &to_trap, &calling, &locals, &facts)?;
        if next == facts {
            let name = m
                .names
                .get(&f)
                .cloned()
                .unwrap_or_else(|| format!("function {f}"));
            let sites = sites
                .into_iter()
                .map(|offset| LocalSite {
                    function: name.clone(),
                    offset,
                })
                .collect();
            return Some((sites, callees));
        }
        facts = next;
    }
    None
}

/// For each operator that opens a block: is its `end` followed by a trap (constants,
/// locals and calls, then `unreachable`: how a failed bounds or overflow check panics)?
fn trap_ends(ops: &[(Operator<'_>, usize)]) -> Vec<bool> {
    let mut out = vec![false; ops.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, (op, _)) in ops.iter().enumerate() {
        match op {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => open.push(i),
            Operator::End => {
                let Some(start) = open.pop() else { continue };
                out[start] = traps(ops, i + 1);
            }
            _ => {}
        }
    }
    out
}

/// For each `loop` operator: does its body call a function? The GPU's compiler does not
/// unroll such a loop (a shuffle or an atomic in it is a call here, and the nvptx build
/// of 9.10's commit keeps its counter array in local memory when it loops over the
/// array's indices around the shuffles: `notes/local-memory-2026-11-28.md`), so an
/// array indexed by its counter is in local memory, fixed trip count or not.
fn loops_that_call(ops: &[(Operator<'_>, usize)]) -> Vec<bool> {
    let mut out = vec![false; ops.len()];
    let mut open: Vec<(usize, bool)> = Vec::new();
    for (i, (op, _)) in ops.iter().enumerate() {
        match op {
            Operator::Block { .. } | Operator::If { .. } => open.push((usize::MAX, false)),
            Operator::Loop { .. } => open.push((i, false)),
            Operator::Call { .. } | Operator::CallIndirect { .. } if !traps(ops, i) => {
                for f in open.iter_mut() {
                    f.1 = true;
                }
            }
            Operator::End => {
                if let Some((start, calls)) = open.pop().filter(|f| f.0 != usize::MAX) {
                    out[start] = calls;
                }
            }
            _ => {}
        }
    }
    out
}

/// Do the operators from `i` on end in a trap before any other (a failed check's panic:
/// constants, locals and calls, then `unreachable`)?
fn traps(ops: &[(Operator<'_>, usize)], i: usize) -> bool {
    let mut j = i;
    while let Some((
        Operator::I32Const { .. }
        | Operator::I64Const { .. }
        | Operator::LocalGet { .. }
        | Operator::Call { .. }
        | Operator::Drop,
        _,
    )) = ops.get(j)
    {
        j += 1;
    }
    matches!(ops.get(j), Some((Operator::Unreachable, _)))
}

fn join_all(a: &mut [V], b: &[V]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = V::join(*x, y);
    }
}

fn reached(locals: &[V]) -> bool {
    locals.last().is_some_and(|&v| v != V::Bottom)
}

/// A branch to the frame `depth` labels up from the innermost, on a condition of rank
/// `cond` (`None`: unconditional): its locals join the target's, and every loop it
/// leaves or continues learns whether data or a fixed bound ends it.
fn branch(
    frames: &mut [Frame],
    next: &mut FxHashMap<usize, LoopFacts>,
    locals: &[V],
    depth: u32,
    cond: Option<u8>,
) {
    let n = frames.len();
    let Some(t) = n.checked_sub(depth as usize + 1) else {
        return;
    };
    if frames[t].to_trap {
        return;
    }
    // Taken inside an `if` on data (between here and the target): on data too.
    let under_data = frames[t + 1..].iter().any(|f| f.cond_data);
    let on_data = cond == Some(2) || under_data;
    let bounded = matches!(cond, Some(0 | 1)) && !under_data;
    for fr in frames[t..].iter() {
        if let (FrameKind::Loop, Some(l)) = (fr.kind, next.get_mut(&fr.loop_id)) {
            l.on_data |= on_data;
            l.bounded |= bounded;
        }
    }
    let fr = &mut frames[t];
    if fr.kind == FrameKind::Loop {
        if let Some(l) = next.get_mut(&fr.loop_id) {
            join_all(&mut l.back, locals);
        }
    } else {
        join_all(&mut fr.exit, locals);
        fr.exit_on_data |= on_data;
    }
}

/// Pops `n` values (a missing one is data: the analysis never trusts what it lost).
fn pop(stack: &mut Vec<V>, n: usize) -> Vec<V> {
    let at = stack.len().saturating_sub(n);
    let mut v = stack.split_off(at);
    while v.len() < n {
        v.insert(0, V::Data);
    }
    v
}

/// One pass over `ops` with the loops' back edges of the previous pass: the facts it
/// learned, the offsets of the sites it found, and the functions called.
#[allow(clippy::type_complexity)]
fn pass(
    m: &mut Module<'_>,
    ops: &[(Operator<'_>, usize)],
    to_trap: &[bool],
    calling: &[bool],
    entry: &[V],
    facts: &FxHashMap<usize, LoopFacts>,
) -> Option<(FxHashMap<usize, LoopFacts>, Vec<usize>, Vec<u32>)> {
    let bottom = vec![V::Bottom; entry.len()];
    let mut locals = entry.to_vec();
    let mut stack: Vec<V> = Vec::new();
    let mut frames: Vec<Frame> = vec![Frame {
        kind: FrameKind::Block,
        height: 0,
        results: 0,
        exit: bottom.clone(),
        exit_on_data: false,
        else_state: None,
        cond_data: false,
        loop_id: 0,
        to_trap: false,
    }];
    m.control.clear();
    m.control.push((BlockType::Empty, FrameKind::Block));
    let mut next: FxHashMap<usize, LoopFacts> = FxHashMap::default();
    let mut sites = Vec::new();
    let mut callees = Vec::new();
    // Frames opened in unreachable code (skipped whole).
    let mut dead = 0usize;
    for (i, (op, offset)) in ops.iter().enumerate() {
        let (op, offset) = (op.clone(), *offset);
        if !reached(&locals) {
            match op {
                Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => {
                    dead += 1;
                    continue;
                }
                Operator::End | Operator::Else if dead > 0 => {
                    if matches!(op, Operator::End) {
                        dead -= 1;
                    }
                    continue;
                }
                Operator::End | Operator::Else => {}
                _ => continue,
            }
        }
        match op {
            Operator::Unreachable => locals.clone_from(&bottom),
            Operator::Return => {
                let d = frames.len() as u32 - 1;
                branch(&mut frames, &mut next, &locals, d, None);
                locals.clone_from(&bottom);
            }
            Operator::Nop => {}
            Operator::Block { blockty } | Operator::Loop { blockty } | Operator::If { blockty } => {
                let (p, r) = m.block_type_arity(blockty)?;
                let cond_data =
                    matches!(op, Operator::If { .. }) && pop(&mut stack, 1)[0].rank() == 2;
                let kind = match op {
                    Operator::Block { .. } => FrameKind::Block,
                    Operator::Loop { .. } => FrameKind::Loop,
                    _ => FrameKind::If,
                };
                let mut frame = Frame {
                    kind,
                    height: stack.len().saturating_sub(p as usize),
                    results: if kind == FrameKind::Loop { p } else { r } as usize,
                    exit: bottom.clone(),
                    exit_on_data: false,
                    else_state: None,
                    cond_data,
                    loop_id: i,
                    to_trap: to_trap.get(i).copied().unwrap_or(false),
                };
                if kind == FrameKind::Loop {
                    let prev = facts.get(&i).cloned().unwrap_or(LoopFacts {
                        back: bottom.clone(),
                        on_data: false,
                        bounded: false,
                    });
                    let on_data = prev.on_data && !prev.bounded;
                    for (l, &b) in locals.iter_mut().zip(&prev.back) {
                        let head = V::join(*l, b);
                        // A value carried round a loop that only data ends is data.
                        *l = if on_data && b != V::Bottom && b != *l {
                            head.data_chosen()
                        } else {
                            head
                        };
                    }
                    next.insert(
                        i,
                        LoopFacts {
                            back: bottom.clone(),
                            on_data: prev.on_data,
                            bounded: prev.bounded,
                        },
                    );
                }
                if kind == FrameKind::If {
                    frame.else_state = Some(locals.clone());
                }
                frames.push(frame);
                m.control.push((blockty, kind));
            }
            Operator::Else => {
                let fr = frames.last_mut()?;
                if reached(&locals) {
                    join_all(&mut fr.exit, &locals);
                }
                locals = fr.else_state.take().unwrap_or_else(|| bottom.clone());
                stack.truncate(fr.height);
                fr.kind = FrameKind::Else;
            }
            Operator::End => {
                let fr = frames.pop()?;
                m.control.pop();
                let results = if reached(&locals) {
                    pop(&mut stack, fr.results)
                } else {
                    vec![V::Data; fr.results]
                };
                let fall = locals.clone();
                let mut joined = fall.clone();
                if fr.kind != FrameKind::Loop {
                    join_all(&mut joined, &fr.exit);
                    if let Some(e) = &fr.else_state {
                        // An `if` without `else`: its condition's false path.
                        join_all(&mut joined, e);
                    }
                }
                // Where data chose which path reached here, it chose the values too.
                if fr.exit_on_data || fr.cond_data {
                    let other = fr.else_state.as_ref().unwrap_or(&fr.exit);
                    for ((j, &a), &b) in joined.iter_mut().zip(&fall).zip(other) {
                        if a != V::Bottom && b != V::Bottom && a != b {
                            *j = j.data_chosen();
                        }
                    }
                }
                stack.truncate(fr.height);
                if frames.is_empty() {
                    break;
                }
                locals = joined;
                stack.extend(results);
            }
            Operator::Br { relative_depth } => {
                branch(&mut frames, &mut next, &locals, relative_depth, None);
                locals.clone_from(&bottom);
            }
            Operator::BrIf { relative_depth } => {
                let c = pop(&mut stack, 1)[0];
                branch(
                    &mut frames,
                    &mut next,
                    &locals,
                    relative_depth,
                    Some(c.rank()),
                );
            }
            Operator::BrTable { ref targets } => {
                let c = pop(&mut stack, 1)[0];
                for t in targets.targets() {
                    branch(&mut frames, &mut next, &locals, t.ok()?, Some(c.rank()));
                }
                branch(
                    &mut frames,
                    &mut next,
                    &locals,
                    targets.default(),
                    Some(c.rank()),
                );
                locals.clone_from(&bottom);
            }
            Operator::Call { function_index } => {
                let (p, r) = op.operator_arity(&*m)?;
                pop(&mut stack, p as usize);
                stack.extend(std::iter::repeat_n(V::Data, r as usize));
                if !callees.contains(&function_index) {
                    callees.push(function_index);
                }
            }
            Operator::LocalGet { local_index } => {
                stack.push(*locals[..locals.len() - 1].get(local_index as usize)?);
            }
            Operator::LocalSet { local_index } | Operator::LocalTee { local_index } => {
                let v = pop(&mut stack, 1)[0];
                let n = locals.len() - 1;
                *locals[..n].get_mut(local_index as usize)? = v;
                if matches!(op, Operator::LocalTee { .. }) {
                    stack.push(v);
                }
            }
            Operator::GlobalGet { global_index } => {
                // Global 0 is the stack pointer in the modules rustc and LLVM write.
                stack.push(if global_index == 0 { V::Sp(0) } else { V::Data });
            }
            Operator::I32Const { value } => stack.push(V::Const(value.into())),
            Operator::I64Const { value } => stack.push(V::Const(value)),
            Operator::I32Add | Operator::I64Add | Operator::I32Sub | Operator::I64Sub => {
                let v = pop(&mut stack, 2);
                let sub = matches!(op, Operator::I32Sub | Operator::I64Sub);
                stack.push(V::add(v[0], v[1], sub));
            }
            Operator::I32WrapI64 | Operator::I64ExtendI32U | Operator::I64ExtendI32S => {
                let v = pop(&mut stack, 1)[0];
                stack.push(v);
            }
            Operator::Select | Operator::TypedSelect { .. } => {
                let v = pop(&mut stack, 3);
                let j = V::join(v[0], v[1]);
                stack.push(if v[2].rank() == 2 && v[0] != v[1] {
                    j.data_chosen()
                } else {
                    j
                });
            }
            _ => {
                let (p, r) = op.operator_arity(&*m)?;
                let args = pop(&mut stack, p as usize);
                // The innermost loop around this access, if any: does it call?
                let in_calling_loop = frames
                    .iter()
                    .rev()
                    .find(|f| f.kind == FrameKind::Loop)
                    .is_some_and(|f| calling.get(f.loop_id).copied().unwrap_or(false));
                let addr = memory_address(&op, &args);
                if addr == Some(V::SpData) || (addr == Some(V::SpFixed) && in_calling_loop) {
                    sites.push(offset);
                }
                let v = if is_load(&op) {
                    V::Data
                } else {
                    V::other(&args)
                };
                stack.extend(std::iter::repeat_n(v, r as usize));
            }
        }
    }
    Some((next, sites, callees))
}

/// The address operand of a load or store (its first), `None` for other operators.
fn memory_address(op: &Operator<'_>, args: &[V]) -> Option<V> {
    (is_load(op) || is_store(op)).then(|| args.first().copied().unwrap_or(V::Data))
}

fn is_load(op: &Operator<'_>) -> bool {
    use Operator::*;
    matches!(
        op,
        I32Load { .. }
            | I64Load { .. }
            | F32Load { .. }
            | F64Load { .. }
            | I32Load8S { .. }
            | I32Load8U { .. }
            | I32Load16S { .. }
            | I32Load16U { .. }
            | I64Load8S { .. }
            | I64Load8U { .. }
            | I64Load16S { .. }
            | I64Load16U { .. }
            | I64Load32S { .. }
            | I64Load32U { .. }
    )
}

fn is_store(op: &Operator<'_>) -> bool {
    use Operator::*;
    matches!(
        op,
        I32Store { .. }
            | I64Store { .. }
            | F32Store { .. }
            | F64Store { .. }
            | I32Store8 { .. }
            | I32Store16 { .. }
            | I64Store8 { .. }
            | I64Store16 { .. }
            | I64Store32 { .. }
    )
}
