//! Counts and articles in messages: "1 request", "2 requests", "an atomicCAS", so that no
//! report says "1 requests" or "a atomicCAS".

/// `noun` for `n` of them: the noun as given for 1, with an `s` for any other count.
/// A phrase (`"load request"`) takes the `s` on its last word.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        format!("{noun}s")
    }
}

/// `n` and the noun for `n` ([`plural`]): `"1 bin"`, `"0 bins"`, `"3 load requests"`.
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {}", plural(n, noun))
}

/// A plural phrase (`"load requests"`) for `n`: as given, but without its last `s` for
/// one (`"1 load request"`).
pub fn count_of(n: u64, plural_noun: &str) -> String {
    let one = plural_noun.strip_suffix('s').unwrap_or(plural_noun);
    count(n, one)
}

/// The indefinite article for `word`: `"an"` before a vowel (`an atomicCAS`, `an
/// element`, `an 8-byte load`), `"a"` otherwise (`a __global__ read`, `a load`, `a
/// 16-byte load`). Underscores and backquotes before the first letter are skipped.
pub fn article(word: &str) -> &'static str {
    let word = word.trim_start_matches(['_', '`']);
    let first = word.chars().next().map(|c| c.to_ascii_lowercase());
    // A number said aloud: "an 8-byte load", "an 11", "an 18-byte".
    let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
    let eleven = (digits.len() == 2 || digits.len() == 5) && matches!(&digits[..2], "11" | "18");
    if matches!(first, Some('a' | 'e' | 'i' | 'o' | 'u' | '8')) || eleven {
        "an"
    } else {
        "a"
    }
}

/// `word` after its article: `"an atomicCAS on __global__"`, `"a __global__ read"`.
pub fn with_article(word: &str) -> String {
    format!("{} {word}", article(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_articles_agree() {
        assert_eq!(count(1, "request"), "1 request");
        assert_eq!(count(0, "request"), "0 requests");
        assert_eq!(count(2, "store request"), "2 store requests");
        assert_eq!(count_of(1, "load requests"), "1 load request");
        assert_eq!(count_of(5, "load requests"), "5 load requests");
        assert_eq!(
            with_article("atomicCAS on __global__"),
            "an atomicCAS on __global__"
        );
        assert_eq!(
            with_article("__global__ read of size 4"),
            "a __global__ read of size 4"
        );
        assert_eq!(with_article("element"), "an element");
        assert_eq!(with_article("load"), "a load");
        assert_eq!(with_article("8-byte load"), "an 8-byte load");
        assert_eq!(with_article("16-byte load"), "a 16-byte load");
        assert_eq!(with_article("18-byte load"), "an 18-byte load");
        assert_eq!(with_article("1-byte load"), "a 1-byte load");
    }
}
