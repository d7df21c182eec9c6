//! Text that came from a kernel (a panic message, its file name, a printed line), made
//! safe to show: it reaches the student's terminal, the instructor's table and the
//! grader's JUnit XML, where a control character could rewrite the lines above it
//! (`ESC [1A`, a carriage return), ring a bell, make the XML invalid, or, as a bidi
//! override, show text in another order than it is read.

/// `text` with every character that does not show as itself ([`hidden`]: controls but
/// newline and tab, bidi and other format characters, invisible fillers, line and
/// paragraph separators, noncharacters) written as its Rust escape (`\u{1b}`): visible,
/// still telling what was there, and valid in XML 1.0.
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

/// A character that acts on the display instead of showing as itself, or that XML 1.0
/// cannot hold: controls (but newline and tab, C0 and C1), Unicode's format characters
/// (bidi marks, embeddings, overrides and isolates; zero-width spaces and joiners; the
/// Arabic letter mark; tag characters; the soft hyphen), the other default-ignorable
/// characters (variation selectors, Hangul fillers, the combining grapheme joiner), line
/// and paragraph separators, and the noncharacters (`U+FFFE`, `U+FFFF`, ...).
pub fn hidden(c: char) -> bool {
    let u = c as u32;
    (c.is_control() && c != '\n' && c != '\t')
        || u & 0xFFFE == 0xFFFE
        || matches!(
            u,
            0x00AD
                | 0x034F
                | 0x0600..=0x0605
                | 0x061C
                | 0x06DD
                | 0x070F
                | 0x0890..=0x0891
                | 0x08E2
                | 0x115F..=0x1160
                | 0x17B4..=0x17B5
                | 0x180B..=0x180F
                | 0x200B..=0x200F
                | 0x2028..=0x202E
                | 0x2060..=0x206F
                | 0x3164
                | 0xFDD0..=0xFDEF
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF0..=0xFFFB
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A
                | 0xE0000..=0xE0FFF
        )
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
        for c in [
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{2028}',
            '\u{2029}',
            '\u{2066}',
            '\u{feff}',
            '\u{e0041}',
            '\u{fe0f}',
            '\u{ffff}',
            '\u{10fffe}',
            '\u{ad}',
        ] {
            assert_eq!(printable(&c.to_string()), c.escape_unicode().to_string());
        }
        assert_eq!(
            printable("ok: \u{263a} \u{1f600}"),
            "ok: \u{263a} \u{1f600}"
        );
    }
}
