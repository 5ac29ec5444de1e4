//! `Content-Encoding` of requests and `Accept-Encoding` of responses. The AWS SDKs can compress
//! request bodies (gzip), and DynamoDB accepts gzip and deflate (zlib) bodies; it compresses its
//! answers for clients that accept it, with `x-amz-crc32` computed over the compressed bytes (which
//! is what the SDKs check). What DynamoDB does with broken or unknown encodings, as recorded
//! against the real service by ScyllaDB's Alternator test suite (test_compressed_request.py):
//! an unknown coding, a broken or truncated stream and an empty body all answer HTTP 500; several
//! gzip members are one body; bytes after the last gzip member that do not start another are
//! ignored; a deflate body is one zlib stream. The 16 MiB limit applies to the decoded body too
//! (DynamoDB accepts larger decoded bodies; the issue tracker asked for the limit, so a small
//! compressed request cannot make the server hold gigabytes).

use dynalab_engine::{DynamoError, ErrorKind};
use flate2::bufread::{GzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use std::io::{BufRead, Read, Write};

/// A coding the server decodes and encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Gzip,
    Deflate,
}

fn broken(coding: &str, why: impl std::fmt::Display) -> DynamoError {
    DynamoError::new(
        ErrorKind::InternalFailure,
        format!("The request body could not be decoded as Content-Encoding {coding}: {why}"),
    )
}

fn too_large(limit: usize) -> DynamoError {
    DynamoError::new(
        ErrorKind::RequestEntityTooLarge,
        format!("Request body exceeds the limit of {limit} bytes (16 MiB) once decoded"),
    )
}

/// The body as the client meant it: `content_encoding` (codings in the order they were applied)
/// undone, at most `limit` bytes.
pub fn decode(content_encoding: Option<&str>, body: bytes::Bytes, limit: usize) -> Result<bytes::Bytes, DynamoError> {
    let Some(header) = content_encoding else { return Ok(body) };
    let mut body = body;
    for coding in header.split(',').map(str::trim).rev() {
        body = match coding.to_ascii_lowercase().as_str() {
            "" | "identity" => body,
            "gzip" | "x-gzip" => gunzip(&body, limit)?.into(),
            "deflate" => inflate(&body, limit)?.into(),
            other => {
                return Err(DynamoError::new(
                    ErrorKind::InternalFailure,
                    format!("The request's Content-Encoding {other} is not supported; gzip and deflate are"),
                ))
            }
        };
    }
    Ok(body)
}

/// Reads `decoder` to its end into `out`, failing past `limit` bytes in all.
fn read_bounded(decoder: impl Read, out: &mut Vec<u8>, limit: usize, coding: &str) -> Result<(), DynamoError> {
    let room = (limit + 1).saturating_sub(out.len()) as u64;
    decoder.take(room).read_to_end(out).map_err(|e| broken(coding, e))?;
    if out.len() > limit {
        return Err(too_large(limit));
    }
    Ok(())
}

fn gunzip(body: &[u8], limit: usize) -> Result<Vec<u8>, DynamoError> {
    if body.is_empty() {
        return Err(broken("gzip", "the body is empty"));
    }
    let mut out = Vec::new();
    let mut rest = body;
    // Member after member, while what follows starts like one.
    while rest.starts_with(&[0x1f, 0x8b]) {
        let mut decoder = GzDecoder::new(rest);
        read_bounded(&mut decoder, &mut out, limit, "gzip")?;
        let mut remaining = decoder.into_inner();
        // The decoder reads whole members only; what it has not consumed is what follows.
        let consumed = remaining.fill_buf().map_or(0, <[u8]>::len);
        rest = &rest[rest.len() - consumed..];
    }
    if std::ptr::eq(rest, body) {
        return Err(broken("gzip", "the body is not a gzip stream"));
    }
    Ok(out)
}

fn inflate(body: &[u8], limit: usize) -> Result<Vec<u8>, DynamoError> {
    if body.is_empty() {
        return Err(broken("deflate", "the body is empty"));
    }
    let mut out = Vec::new();
    read_bounded(ZlibDecoder::new(body), &mut out, limit, "deflate")?;
    Ok(out)
}

/// The coding to answer with, from every `Accept-Encoding` header the request has (RFC 9110: a
/// coding named explicitly is weighed by its own `q`, others by `*`'s; `q=0` refuses; the highest
/// weight wins, gzip on a tie; spaces and the case of names and `q` do not matter).
pub fn choose<'a>(accept_encoding: impl IntoIterator<Item = &'a str>) -> Option<Coding> {
    let mut named: Vec<(String, f32)> = Vec::new();
    for header in accept_encoding {
        for part in header.split(',') {
            let mut pieces = part.split(';').map(str::trim);
            let coding = pieces.next().unwrap_or_default().to_ascii_lowercase();
            if coding.is_empty() {
                continue;
            }
            let q = pieces
                .filter_map(|p| p.split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                .map_or(Some(1.0), |(_, q)| q.trim().parse::<f32>().ok());
            named.push((coding, q.unwrap_or(0.0)));
        }
    }
    let weight = |names: &[&str]| {
        let own = named.iter().find(|(n, _)| names.contains(&n.as_str())).map(|(_, q)| *q);
        own.or_else(|| named.iter().find(|(n, _)| n == "*").map(|(_, q)| *q)).unwrap_or(0.0)
    };
    let (gzip, deflate) = (weight(&["gzip", "x-gzip"]), weight(&["deflate"]));
    match () {
        () if gzip > 0.0 && gzip >= deflate => Some(Coding::Gzip),
        () if deflate > 0.0 => Some(Coding::Deflate),
        () => None,
    }
}

impl Coding {
    pub fn name(self) -> &'static str {
        match self {
            Self::Gzip => "gzip",
            Self::Deflate => "deflate",
        }
    }

    /// `body` compressed (fast level: answers are small and the CPU is the server's).
    pub fn encode(self, body: &[u8]) -> Vec<u8> {
        let level = Compression::fast();
        let encoded = match self {
            Self::Gzip => {
                let mut encoder = GzEncoder::new(Vec::with_capacity(body.len() / 2 + 32), level);
                encoder.write_all(body).and_then(|()| encoder.finish())
            }
            Self::Deflate => {
                let mut encoder = ZlibEncoder::new(Vec::with_capacity(body.len() / 2 + 32), level);
                encoder.write_all(body).and_then(|()| encoder.finish())
            }
        };
        // Writing into memory cannot fail.
        encoded.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        Coding::Gzip.encode(bytes)
    }

    const LIMIT: usize = 16 * 1024 * 1024;

    #[test]
    fn gzip_and_deflate_bodies_decode_and_several_members_are_one_body() {
        let body = br#"{"TableName":"things"}"#;
        assert_eq!(&decode(Some("gzip"), gzip(body).into(), LIMIT).expect("gzip")[..], &body[..]);
        assert_eq!(
            &decode(Some("deflate"), Coding::Deflate.encode(body).into(), LIMIT).expect("deflate")[..],
            &body[..]
        );
        let two = [gzip(&body[..10]), gzip(&body[10..])].concat();
        assert_eq!(&decode(Some("gzip"), two.into(), LIMIT).expect("two members")[..], &body[..]);
        assert_eq!(&decode(None, body.to_vec().into(), LIMIT).expect("plain")[..], &body[..]);
        assert_eq!(&decode(Some("identity"), body.to_vec().into(), LIMIT).expect("identity")[..], &body[..]);
        let junk = [gzip(body), b"junk".to_vec()].concat();
        assert_eq!(
            &decode(Some("gzip"), junk.into(), LIMIT).expect("junk after the last member, as DynamoDB")[..],
            &body[..]
        );
    }

    #[test]
    fn unknown_broken_truncated_and_empty_bodies_are_internal_failures() {
        let body = br#"{"TableName":"things"}"#;
        let truncated = {
            let mut g = gzip(body);
            g.pop();
            g
        };
        let cases: [(&str, Vec<u8>); 6] = [
            ("garbage", body.to_vec()),
            ("gzip", body.to_vec()),
            ("gzip", truncated),
            ("gzip", Vec::new()),
            ("deflate", body.to_vec()),
            ("deflate", Vec::new()),
        ];
        for (coding, bytes) in cases {
            let error = decode(Some(coding), bytes.into(), LIMIT).expect_err(coding);
            assert_eq!(error.kind, ErrorKind::InternalFailure, "{coding}: {}", error.message);
            assert_eq!(error.kind.http_status(), 500);
        }
    }

    #[test]
    fn a_bomb_stops_at_the_decoded_limit() {
        let bomb = gzip(&vec![b' '; 64 * 1024 * 1024]);
        assert!(bomb.len() < 1024 * 1024, "{} bytes", bomb.len());
        let error = decode(Some("gzip"), bomb.into(), LIMIT).expect_err("too large");
        assert_eq!(error.kind, ErrorKind::RequestEntityTooLarge);
        let exactly = gzip(&vec![b' '; 1000]);
        assert_eq!(decode(Some("gzip"), exactly.into(), 1000).expect("at the limit").len(), 1000);
    }

    #[test]
    fn the_answer_coding_follows_accept_encoding() {
        let one = |header: &str| choose([header]);
        assert_eq!(one("gzip, deflate"), Some(Coding::Gzip));
        assert_eq!(one("deflate"), Some(Coding::Deflate));
        assert_eq!(one("gzip;q=0, deflate"), Some(Coding::Deflate));
        assert_eq!(one("identity"), None);
        assert_eq!(one("br"), None);
        assert_eq!(choose([]), None);
        assert_eq!(one("*"), Some(Coding::Gzip));
        // q-values weigh, spaces and case do not matter, an explicit name beats `*`.
        assert_eq!(one("gzip ; q=0.2 , deflate ; Q=0.8"), Some(Coding::Deflate));
        assert_eq!(one("GZIP"), Some(Coding::Gzip));
        assert_eq!(one("*;q=0, gzip"), Some(Coding::Gzip));
        assert_eq!(one("gzip;q=0, *"), Some(Coding::Deflate));
        assert_eq!(one("*;q=0"), None);
        assert_eq!(one("gzip;q=nonsense"), None);
        // Several Accept-Encoding headers are one list.
        assert_eq!(choose(["br", "deflate"]), Some(Coding::Deflate));
        assert_eq!(choose(["identity", "gzip;q=0.5"]), Some(Coding::Gzip));
    }
}
