//! What a call or the start does beyond one store call: the start-up
//! [`housekeeping`], the kept [`qr_codes`] of instructions, the [`labels`]
//! sheet of a department, and how [`maintenance`] stands across units.

pub mod housekeeping;
pub mod labels;
pub mod maintenance;
pub mod qr_codes;
