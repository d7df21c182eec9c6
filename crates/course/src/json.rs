//! What the course's JSON readers share: an optional field that must still be written.
//!
//! serde reads a missing `Option` field as `None`, so a field renamed by the writer would
//! read as "no value" (a bar of height zero, a report without a hint) instead of failing.
//! The course's reports write every `Option` field, `null` included; their readers mark
//! such fields `#[serde(deserialize_with = "course::json::present")]`, which makes a
//! missing one an error that names it.

use serde::{Deserialize, Deserializer};

/// Reads an `Option<T>` that must be present (`null` is `None`; absent is an error).
pub fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Row {
        #[serde(deserialize_with = "super::present")]
        gbps: Option<f64>,
    }

    #[test]
    fn null_is_none_and_absent_is_an_error() {
        let r: Row = serde_json::from_str(r#"{"gbps": null}"#).unwrap();
        assert_eq!(r, Row { gbps: None });
        let r: Row = serde_json::from_str(r#"{"gbps": 2.5}"#).unwrap();
        assert_eq!(r, Row { gbps: Some(2.5) });
        let err = serde_json::from_str::<Row>(r#"{"gb_per_s": 2.5}"#).unwrap_err();
        assert!(err.to_string().contains("missing field `gbps`"), "{err}");
    }
}
