//! What a call or the start does beyond one store call: [`clearance`] to
//! operate equipment (asking education and auth), the start-up
//! [`housekeeping`], the kept [`qr_codes`] of instructions, the [`labels`]
//! sheet of a department, and how [`maintenance`] stands across units.

pub mod clearance;
pub mod housekeeping;
pub mod labels;
pub mod maintenance;
pub mod notifications;
pub mod qr_codes;
