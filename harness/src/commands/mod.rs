//! Commands of the `schema-fidelity` binary that live in the library, where they can be tested
//! as functions: [`init`] scaffolds a repository of one's own.

pub mod init;
