//! A JSON body as the handlers read it, whatever way JSON allows the caller to
//! spell it: `null` is the field left out, and a number with nothing after
//! its point (`5.0`, `1e3`) is the whole number it is, as JSON Schema's
//! `integer` (and so the document) counts it.

use serde_json::{Number, Value};

/// `value` with every `null` member of its objects removed and every whole
/// whole number up to 2^53 written as an integer.
pub fn as_read(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.retain(|_, member| !member.is_null());
            members.values_mut().for_each(as_read);
        }
        Value::Array(items) => items.iter_mut().for_each(as_read),
        Value::Number(number) => {
            if let Some(whole) = whole(number) {
                *number = whole;
            }
        }
        _ => {}
    }
}

/// `number` as an integer when it is a float with no fraction up to 2^53:
/// beyond, a float stands for many integers (`-9223372036854775809` reads as
/// -2^63), so it stays a float, which an integer field refuses.
fn whole(number: &Number) -> Option<Number> {
    if number.is_i64() || number.is_u64() {
        return None;
    }
    let float = number.as_f64()?;
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (float.fract() == 0.0 && (-EXACT..=EXACT).contains(&float)).then(|| Number::from(float as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(mut value: Value) -> Value {
        as_read(&mut value);
        value
    }

    #[test]
    fn nulls_are_left_out_and_whole_floats_are_integers() {
        assert_eq!(
            read(
                json!({"id": 5229.0, "title": null, "ids": [1.0, -2424.0, 2.5], "n": {"x": null}})
            ),
            json!({"id": 5229, "ids": [1, -2424, 2.5], "n": {}})
        );
        assert_eq!(read(json!(1e3)), json!(1000));
        assert_eq!(
            read(json!(-9007199254740992.0)),
            json!(-9007199254740992_i64)
        );
        // Beyond 2^53 stays a float, which an integer field refuses.
        let beyond: Value = serde_json::from_str("-9223372036854775809").unwrap();
        assert!(read(beyond).is_f64());
        assert!(read(json!(9.3e18)).is_f64());
        assert!(read(json!(1e300)).is_f64());
        assert_eq!(read(json!(u64::MAX)), json!(u64::MAX));
    }
}
