//! The QR codes of this portal's instructions, kept once drawn.
//!
//! A code depends on nothing but the public URL (fixed for the process) and
//! the model id, so each is drawn once and kept in a bounded cache: every
//! model read carries one, and a label sheet one per unit.

use std::sync::Arc;

use portal_kit::ServiceError;
use quick_cache::sync::Cache;

use crate::domain::qr;

/// How many models' codes are kept: a PNG is a few KB, so a few MB at most.
const KEPT: usize = 1024;

/// The QR codes of this portal's instructions, each drawn once per process.
pub struct QrCodes {
    public_url: String,
    drawn: Cache<i64, Arc<[u8]>>,
}

impl QrCodes {
    pub fn new(public_url: &str) -> QrCodes {
        QrCodes::with_capacity(public_url, KEPT)
    }

    fn with_capacity(public_url: &str, capacity: usize) -> QrCodes {
        QrCodes {
            public_url: public_url.to_owned(),
            drawn: Cache::new(capacity),
        }
    }

    /// What model `model_id`'s code opens.
    pub fn url(&self, model_id: i64) -> String {
        qr::instruction_url(&self.public_url, model_id)
    }

    /// The PNG of model `model_id`'s code. Two first reads at once may both
    /// draw it, rather than one wait on the other's thread.
    pub fn png(&self, model_id: i64) -> Result<Vec<u8>, ServiceError> {
        if let Some(drawn) = self.drawn.get(&model_id) {
            return Ok(drawn.to_vec());
        }
        let drawn = qr::png(&self.url(model_id))?;
        self.drawn.insert(model_id, Arc::from(drawn.as_slice()));
        Ok(drawn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_drawn_once_and_the_kept_ones_are_bounded() {
        let codes = QrCodes::with_capacity("https://portal.example/", 4);
        let first = codes.png(7).unwrap();
        assert_eq!(
            first,
            qr::png("https://portal.example/short-instruction/7").unwrap()
        );
        assert_eq!(codes.drawn.len(), 1);
        assert_eq!(codes.png(7).unwrap(), first, "the kept one");
        assert_eq!(codes.drawn.len(), 1, "not drawn again");
        for id in 0..100 {
            codes.png(id).unwrap();
        }
        assert!(codes.drawn.len() <= 4, "{} kept", codes.drawn.len());
    }
}
