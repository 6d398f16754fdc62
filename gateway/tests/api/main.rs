//! The gateway's integration tests as one test binary (each file a module),
//! so the four services are linked once rather than once per file.

mod backup;
mod balancing;
mod binary;
mod edge;
mod gateway;
mod machine;
mod observe;
mod outages;
mod rest_audit;
mod rest_auth;
mod rest_clearance;
mod rest_directory;
mod rest_education;
mod rest_files;
mod rest_integration_staff;
mod rest_invitations;
mod rest_mfa;
mod rest_notifications;
mod rest_password_reset;
mod rest_revisions;
mod rest_search;
mod rest_service_accounts;
mod rest_sso;
mod rest_statistics_export;
mod rest_wiki;
mod revocation;
mod support;
mod topology;
mod topology_digests;
mod traces;
mod web_client;
