//! Text that came from a kernel (a panic message, its file name, a printed line), made
//! safe to show: it reaches the student's terminal, the instructor's table and the
//! grader's JUnit XML, where a control character could rewrite the lines above it
//! (`ESC [1A`, a carriage return), ring a bell, make the XML invalid, or, as a bidi
//! override, show text in another order than it is read.

/// `text` with every control character but newline and tab, and every bidi control,
/// written as its Rust escape (`\u{1b}`): visible, and still telling what was there.
pub fn printable(text: &str) -> String {
    if !text.chars().any(hidden) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// A character that acts on the display instead of showing: controls (but newline and
/// tab) and the bidirectional formatting characters.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn controls_and_bidi_overrides_are_escaped_and_the_rest_kept() {
        assert_eq!(
            printable("plain, é, 漢字\n\tnext"),
            "plain, é, 漢字\n\tnext"
        );
        assert_eq!(printable("a\u{1b}[1A\rb\u{7}"), "a\\u{1b}[1A\\u{d}b\\u{7}");
        assert_eq!(printable("x\u{202e}y\u{85}"), "x\\u{202e}y\\u{85}");
    }
}
