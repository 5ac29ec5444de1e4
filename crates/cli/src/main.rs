//! `dynalab`: the command line. `dynalab serve` is a DynamoDB-compatible endpoint on the engine;
//! `dynalab check` proves a workbook's access patterns.
#![forbid(unsafe_code)]

mod check;
mod endpoint;
mod export;
mod mcp;
mod pack;
mod serve;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

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
        /// Also allow browser pages from this origin (repeatable; `*` allows every origin, `null`
        /// allows sandboxed and file: pages). Pages from localhost are always allowed.
        #[arg(long = "cors-origin", value_name = "ORIGIN")]
        cors_origins: Vec<String>,
        /// Most connections open at once. Past it, a newcomer takes the place of an idle connection
        /// (no request in flight) that never completed a request — of the client address holding
        /// the most of those — else of the connection idle the longest; it is answered 503 only
        /// when every open connection has a request in flight.
        #[arg(long, default_value_t = 768)]
        max_connections: usize,
        /// Seconds a connection may take to send a request's headers, or sit idle between requests.
        #[arg(long, default_value_t = 60)]
        idle_timeout: u64,
        /// Seconds a request's body may take to arrive.
        #[arg(long, default_value_t = 60)]
        body_timeout: u64,
        /// Seconds an answer may go without its client reading any of it; then the connection is
        /// closed and the answer's memory given back.
        #[arg(long, default_value_t = 30)]
        write_timeout: u64,
        /// MiB that answers not yet read by their clients may hold. Past it, a read whose answer is
        /// over 64 KiB is answered 503 ServiceUnavailable (SDKs retry it) until clients read theirs;
        /// writes and small answers are always answered.
        #[arg(long, default_value_t = 256, value_name = "MIB")]
        answer_memory: usize,
        /// Seconds in-flight requests get to finish after Ctrl-C or SIGTERM (a second signal stops at once).
        #[arg(long, default_value_t = 10)]
        shutdown_grace: u64,
        /// Verify every request's SigV4 signature against this one access key and secret, and answer
        /// as DynamoDB does when it is wrong, expired or dated in the future. Without it, any
        /// well-formed signature is accepted, as with DynamoDB Local.
        /// (Every local user can read a command line in `ps`: prefer --credentials-file or
        /// DYNALAB_CREDENTIALS.) Signatures must be scoped to the service `dynamodb` and the
        /// region us-east-1, as DynamoDB's own endpoint there requires.
        #[arg(long, value_name = "KEY:SECRET", value_parser = parse_credentials, conflicts_with = "credentials_file")]
        credentials: Option<(String, String)>,
        /// The same KEY:SECRET, read from the first line of this file. Without either option the
        /// environment variable DYNALAB_CREDENTIALS is read, when set.
        #[arg(long, value_name = "PATH")]
        credentials_file: Option<PathBuf>,
    },
    /// Repair a data directory whose write log is damaged: keeps a copy of the whole log beside it
    /// (writes.log.damaged-TIME), then writes a new log of what can be trusted: every whole append
    /// before the damage, a repeated record kept once. What follows the damage is left out of the
    /// log (it stays in the copy).
    Repair {
        /// The data directory `dynalab serve --data-dir` refused to start with.
        #[arg(long, value_name = "DIR")]
        data_dir: PathBuf,
    },
    /// A Model Context Protocol server on standard input and output, for coding agents: run
    /// DynamoDB operations on an in-memory engine, explain their capacity, load items, and check or
    /// compare designs. Add it to an agent's MCP configuration as the command `dynalab mcp`.
    Mcp,
    /// Prove a design: run every access pattern of a workbook on a fresh engine loaded with its
    /// fixture, and report calls, capacity, hot keys, cost and a verdict per pattern. A design
    /// without access patterns is reported (what it holds, its declared capacity, proposed
    /// patterns) and proves nothing. Exit 0 when no pattern fails, 1 when one does (or declared
    /// capacity is under the demand), 2 when the design is invalid.
    Check {
        /// The workbook (format dynalab-workbook/1, see docs/workbook.md), or a design to import: a
        /// design note in Markdown (the modelling method's tables, the AWS DynamoDB MCP server's
        /// dynamodb_data_model.md), a dynamodb_data_model.json, a design skill cost model, a NoSQL
        /// Workbench model, a CloudFormation or SAM template (JSON or YAML), a Serverless service, a
        /// Terraform file or a OneTable schema.
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
        /// Check this second design too and report the two side by side, per pattern (paired by
        /// what each does: the same access pattern by name, else table or index, operation and key
        /// shape; never by id) and in total: units, cost and verdicts.
        #[arg(long, value_name = "FILE")]
        compare: Option<PathBuf>,
        /// FILE is a learner's challenge solution (dynalab-solution/1): grade it against this
        /// challenge pack, as the playground does (exit 1 unless it passes).
        #[arg(long, value_name = "PACK")]
        pack: Option<PathBuf>,
        /// A value for a CloudFormation template's parameter, as `aws cloudformation deploy
        /// --parameter-overrides` takes it (repeatable). Taken before the parameter's Default.
        #[arg(long = "parameter", value_name = "NAME=VALUE", value_parser = parse_parameter)]
        parameters: Vec<(String, String)>,
    },
    /// Write a design as the files a team deploys (docs/export.md): cloudformation.yaml,
    /// serverless.yml, main.tf (Terraform), cdk/design-stack.ts and a README. Each holds the
    /// design's tables, keys, indexes, billing and declared capacity, time to live and streams, and
    /// reads back with `dynalab check` as the same tables.
    Export {
        /// Any design `dynalab check` reads, with access patterns or not.
        file: PathBuf,
        /// The folder to write into (made if missing; files of these names are replaced).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// A value for a template's parameter or a Terraform variable (repeatable), as for `check`.
        #[arg(long = "parameter", value_name = "NAME=VALUE", value_parser = parse_parameter)]
        parameters: Vec<(String, String)>,
    },
    /// Workshop and challenge packs (docs/pack.md).
    Pack {
        #[command(subcommand)]
        command: PackCommand,
    },
}

#[derive(Subcommand)]
enum PackCommand {
    /// Check packs for their author: the format, every reference solution passing, every naive
    /// solution failing as the pack says. Exit 2 if a file does not read, 1 if a solution misbehaves.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
        Command::Serve {
            host,
            port,
            data_dir,
            cors_origins,
            max_connections,
            idle_timeout,
            body_timeout,
            write_timeout,
            answer_memory,
            shutdown_grace,
            credentials,
            credentials_file,
        } => {
            let credentials = match credentials_from(credentials, credentials_file.as_deref()) {
                Ok(credentials) => credentials,
                Err(e) => {
                    eprintln!("dynalab: {e}");
                    return std::process::ExitCode::from(2);
                }
            };
            let limits = dynalab_server::Limits {
                max_connections: max_connections.max(1),
                idle_timeout: Duration::from_secs(idle_timeout.max(1)),
                body_timeout: Duration::from_secs(body_timeout.max(1)),
                write_timeout: Duration::from_secs(write_timeout.max(1)),
                answer_memory: answer_memory.saturating_mul(1024 * 1024),
                shutdown_grace: Duration::from_secs(shutdown_grace),
            };
            let options = serve::Options { host, port, data_dir, cors_origins, limits, credentials };
            match serve::run(options) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("dynalab: {e}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Command::Mcp => mcp::run(),
        Command::Repair { data_dir } => match dynalab_server::persistence::repair(&data_dir) {
            Ok(said) => {
                stdout(&format!("{said}\n"));
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("dynalab: {e}");
                std::process::ExitCode::FAILURE
            }
        },
        Command::Pack { command: PackCommand::Check { files } } => pack::check(&files),
        Command::Export { file, out, parameters } => {
            let options = dynalab_lab::workbook::import::Options { parameters: parameters.into_iter().collect() };
            export::run(&file, &out, &options)
        }
        Command::Check { file, format, out, endpoint, compare, pack: pack_file, parameters } => {
            if let Some(text) = std::fs::read_to_string(&file).ok().filter(|t| pack::is_solution(t)) {
                return pack::grade_solution(
                    &file,
                    &text,
                    pack_file.as_deref(),
                    matches!(format, Format::Json),
                    out.as_deref(),
                );
            }
            let output = match format {
                Format::Md => check::Output::Markdown,
                Format::Json => check::Output::Json,
                Format::Validation => check::Output::Validation,
                Format::Workbook => check::Output::Workbook,
            };
            let options = dynalab_lab::workbook::import::Options { parameters: parameters.into_iter().collect() };
            let run = check::Run { output, out: out.as_deref(), options: &options };
            match (compare, output) {
                (_, check::Output::Workbook) => check::convert(&file, &run),
                (Some(other), _) => check::compare(&file, &other, &run),
                (None, _) => check::run(&file, &run, endpoint.as_deref()),
            }
        }
    }
}

/// Writes to standard output. A reader that closed the pipe (`dynalab check … | head`) is a
/// normal end, not a failure: what is left is not written, and nothing panics.
pub fn stdout(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("dynalab: cannot write to standard output: {e}"),
        Ok(()) => {}
    }
}

/// `NAME=VALUE` (the value may itself hold `=`).
fn parse_parameter(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err("expected NAME=VALUE, e.g. --parameter Stage=prod".into()),
    }
}

/// The credentials to verify with: `--credentials`, else the first line of `--credentials-file`,
/// else the environment's DYNALAB_CREDENTIALS, else none (any signature accepted).
fn credentials_from(
    given: Option<(String, String)>,
    file: Option<&std::path::Path>,
) -> Result<Option<(String, String)>, String> {
    if given.is_some() {
        eprintln!(
            "dynalab: note: --credentials can be read by any local user in `ps`; --credentials-file or DYNALAB_CREDENTIALS keep the secret out of the command line"
        );
        return Ok(given);
    }
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--credentials-file {}: {e}", path.display()))?;
        let line = text.lines().next().unwrap_or("").trim();
        return parse_credentials(line).map(Some).map_err(|e| format!("--credentials-file {}: {e}", path.display()));
    }
    // Set but blank is refused like an empty --credentials-file: someone meant to turn checking
    // on, and silently turning it off would be the opposite.
    match std::env::var_os("DYNALAB_CREDENTIALS") {
        Some(value) => {
            let value = value.to_str().ok_or("DYNALAB_CREDENTIALS: not UTF-8")?.trim().to_string();
            parse_credentials(&value).map(Some).map_err(|e| {
                if value.is_empty() {
                    format!("DYNALAB_CREDENTIALS is set but blank: {e} (unset it to accept any signature)")
                } else {
                    format!("DYNALAB_CREDENTIALS: {e}")
                }
            })
        }
        None => Ok(None),
    }
}

/// `KEY:SECRET` (the secret may itself hold colons).
fn parse_credentials(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((key, secret)) if !key.is_empty() && !secret.is_empty() => Ok((key.to_string(), secret.to_string())),
        _ => Err("expected KEY:SECRET, e.g. --credentials AKIDEXAMPLE:wJalrXUtnFEMI".into()),
    }
}
