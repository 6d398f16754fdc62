//! The files service over a real tonic client, on every database backend and on
//! both object stores (a directory, and S3 through a real S3 API server).

mod access;
mod audit;
mod demo;
mod departments;
mod helpers;
mod links;
mod search;
mod uploads;
