//! serde adapters for the protobuf types that have no JSON form of their own.

/// `google.protobuf.Timestamp` as an RFC 3339 UTC string (or null).
pub mod timestamp {
    use prost_types::Timestamp;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(value: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(ts) => s.collect_str(ts),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(text) if !text.is_empty() => text.parse().map(Some).map_err(D::Error::custom),
            _ => Ok(None),
        }
    }
}

/// `bytes` as standard base64.
pub mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(value: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(value))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use prost_types::Timestamp;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Sample {
        #[serde(with = "super::timestamp")]
        at: Option<Timestamp>,
        #[serde(with = "super::base64_bytes")]
        png: Vec<u8>,
    }

    #[test]
    fn timestamps_and_bytes_round_trip_through_json() {
        let sample = Sample {
            at: Some(Timestamp {
                seconds: 1_700_000_000,
                nanos: 0,
            }),
            png: vec![0x89, b'P', b'N', b'G'],
        };
        let json = serde_json::to_string(&sample).unwrap();
        assert_eq!(json, r#"{"at":"2023-11-14T22:13:20Z","png":"iVBORw=="}"#);
        assert_eq!(serde_json::from_str::<Sample>(&json).unwrap(), sample);
    }

    #[test]
    fn an_absent_timestamp_is_null() {
        let json = serde_json::to_string(&Sample {
            at: None,
            png: vec![],
        })
        .unwrap();
        assert_eq!(json, r#"{"at":null,"png":""}"#);
    }
}
