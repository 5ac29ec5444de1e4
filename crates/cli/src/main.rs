//! `dynalab`: the command line. `dynalab serve` is a DynamoDB-compatible endpoint on the engine;
//! `dynalab check` proves a workbook's access patterns.
#![forbid(unsafe_code)]

mod check;
mod endpoint;
mod serve;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

// Requests allocate many small short-lived buffers; mimalloc measured less CPU per request than
// the system allocator (benches/serve.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "dynalab", version, about = "A DynamoDB lab: the engine as an endpoint, a checker, a playground")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve DynamoDB's HTTP API (JSON 1.0) from memory. Any well-formed SigV4 credentials are
    /// accepted and none are checked, as with DynamoDB Local.
    Serve {
        /// Address to bind; the default keeps the endpoint on this machine.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port to listen on (0 picks a free one; the ready line says which).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Keep the data in this directory: every acknowledged write is fsynced to its log and
        /// replayed at the next start. Without it, everything is in memory.
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Prove a design: run every access pattern of a workbook on a fresh engine loaded with its
    /// fixture, and report calls, capacity, hot keys, cost and a verdict per pattern. Exit 0 when
    /// no pattern fails, 1 when one does, 2 when the workbook is invalid.
    Check {
        /// The workbook (format dynalab-workbook/1, see docs/workbook.md), or a design to import: a
        /// DynamoDB MCP server dynamodb_data_model.json, a design skill cost model, a NoSQL Workbench
        /// model, a CloudFormation template (JSON or YAML).
        file: PathBuf,
        /// What to write.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
        /// Write the report here instead of standard output.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// Run against this DynamoDB-compatible endpoint instead of the lab's engine (real DynamoDB
        /// at https://dynamodb.REGION.amazonaws.com, DynamoDB Local, `dynalab serve`). Requests are
        /// signed with SigV4 using AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws/credentials;
        /// the workbook's tables must not exist there, and are deleted afterwards.
        #[arg(long, value_name = "URL")]
        endpoint: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The design note.
    Md,
    /// The same content as JSON.
    Json,
    /// Every pattern's requests and responses (for MCP users: save as dynamodb_model_validation.json).
    Validation,
    /// The workbook the file became (an imported design converted, to edit and check again);
    /// nothing is run.
    Workbook,
}

fn main() -> std::process::ExitCode {
    match Cli::parse().command {
        Command::Serve { host, port, data_dir } => match serve::run(&host, port, data_dir.as_deref()) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("dynalab: {e}");
                std::process::ExitCode::FAILURE
            }
        },
        Command::Check { file, format, out, endpoint } => {
            let output = match format {
                Format::Md => check::Output::Markdown,
                Format::Json => check::Output::Json,
                Format::Validation => check::Output::Validation,
                Format::Workbook => return check::convert(&file, out.as_deref()),
            };
            check::run(&file, output, out.as_deref(), endpoint.as_deref())
        }
    }
}
