//! Portal's gRPC contracts, generated from `proto/` at build time.

#![allow(clippy::all, clippy::pedantic)]

pub mod json;

pub mod auth {
    pub mod v1 {
        tonic::include_proto!("portal.auth.v1");
    }
}

pub mod education {
    pub mod v1 {
        tonic::include_proto!("portal.education.v1");
    }
}

pub mod wiki {
    pub mod v1 {
        tonic::include_proto!("portal.wiki.v1");
    }
}

pub mod audit {
    pub mod v1 {
        tonic::include_proto!("portal.audit.v1");
    }
}

pub mod search {
    pub mod v1 {
        tonic::include_proto!("portal.search.v1");
    }
}

pub mod files {
    pub mod v1 {
        tonic::include_proto!("portal.files.v1");
    }
}

include!(concat!(env!("OUT_DIR"), "/portal_messages.rs"));

/// Every Portal contract as an encoded `FileDescriptorSet`, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/portal_descriptor.bin"));
