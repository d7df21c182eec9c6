//! The terminal: single key presses where the terminal allows it (raw mode, through
//! `crossterm`, on Linux, macOS and Windows), whole lines otherwise.
//!
//! In raw mode a key acts the moment it is pressed, as in rustlings' watch mode; the
//! terminal then no longer turns `\n` into a new line at the left margin, so everything
//! the runner prints goes through [`print()`], which writes `\r\n` while raw mode is on.
//! Where raw mode cannot be had (an unusual terminal, a pipe), the runner reads lines:
//! a letter, then Enter.

use crate::app::{Event, Key};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

/// Whether raw mode is on (set by [`RawMode::enter`], cleared when it is dropped).
static RAW: AtomicBool = AtomicBool::new(false);

/// Whether keys act on their own (raw mode) rather than after Enter.
pub fn single_keys() -> bool {
    RAW.load(Ordering::SeqCst)
}

/// Writes `text` to stdout, with `\r\n` line ends in raw mode; a closed pipe is not worth
/// a message.
pub fn print(text: &str) {
    let text = if single_keys() {
        text.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        text.to_string()
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Raw mode while this lives: dropping it (at the end of the runner, or when a panic
/// unwinds through it) gives the terminal back as it was.
pub struct RawMode(());

impl RawMode {
    /// Turns raw mode on, or `None` where the terminal does not allow it.
    pub fn enter() -> Option<RawMode> {
        crossterm::terminal::enable_raw_mode().ok()?;
        RAW.store(true, Ordering::SeqCst);
        Some(RawMode(()))
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        RAW.store(false, Ordering::SeqCst);
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// The event a typed line (or a single key, as a one-character line) stands for: a key,
/// nothing for an empty line, or a message for anything else.
pub fn event_of(line: &str) -> Option<Event> {
    let t = line.trim();
    // An exercise's number (`9.4`) opens it, from any screen.
    if t.contains('.') && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Some(Event::Open(t.to_string()));
    }
    match Key::parse(line) {
        Some(k) => Some(Event::Key(k)),
        None if t.is_empty() => Some(Event::Key(Key::Enter)),
        None => Some(Event::UnknownKey(t.to_string())),
    }
}

/// Reads keys until the runner stops listening, on a thread of its own: single key
/// presses in raw mode (Ctrl-C quits at once; Esc steps back), else lines. The end of
/// input quits.
pub fn spawn_key_reader(keys: Sender<Event>) {
    std::thread::spawn(move || {
        if single_keys() {
            read_key_presses(&keys);
        } else {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if let Some(event) = event_of(&line)
                    && keys.send(event).is_err()
                {
                    return;
                }
            }
        }
        let _ = keys.send(Event::Interrupt);
    });
}

/// The raw-mode loop of [`spawn_key_reader`].
fn read_key_presses(keys: &Sender<Event>) {
    use crossterm::event::{self, KeyCode, KeyEventKind, KeyModifiers};
    loop {
        let Ok(ev) = event::read() else { return };
        let event::Event::Key(k) = ev else { continue };
        // Windows reports releases too; act once per press.
        if k.kind == KeyEventKind::Release {
            continue;
        }
        let event = match k.code {
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => return,
            KeyCode::Char(c) if c.is_ascii_digit() || c == '.' => Some(Event::Typed(c)),
            KeyCode::Char(c) => event_of(&c.to_string()),
            KeyCode::Backspace => Some(Event::Typed('\u{8}')),
            KeyCode::Up => Some(Event::Key(Key::Up)),
            KeyCode::Down => Some(Event::Key(Key::Down)),
            KeyCode::Enter => Some(Event::Key(Key::Enter)),
            KeyCode::Esc => Some(Event::Key(Key::Back)),
            _ => None,
        };
        if let Some(event) = event
            && keys.send(event).is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_keys_and_the_rest_says_so() {
        assert_eq!(event_of("h"), Some(Event::Key(Key::Hint)));
        assert_eq!(event_of(" Q \n"), Some(Event::Key(Key::Quit)));
        assert_eq!(event_of("   "), Some(Event::Key(Key::Enter)));
        assert_eq!(event_of("9.4"), Some(Event::Open("9.4".into())));
        assert_eq!(event_of("x"), Some(Event::UnknownKey("x".into())));
    }
}
