//! AWS Signature Version 4, both ways: `dynalab check --endpoint` signs its requests with it, and
//! `dynalab serve --credentials KEY:SECRET` verifies the requests it receives. By default the
//! server checks only that a signature is there (as DynamoDB Local does); with credentials it
//! answers as DynamoDB does: an unknown access key is `UnrecognizedClientException`, a wrong secret
//! or altered request `InvalidSignatureException`, and a request dated more than 15 minutes from
//! the server's clock `InvalidSignatureException` saying it expired or is not yet current.

use dynalab_engine::{DynamoError, ErrorKind, Utc};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

type HmacSha256 = Hmac<Sha256>;

/// How far a request's date may be from the server's clock, either way.
const SKEW_SECONDS: u64 = 15 * 60;

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    // HMAC takes keys of any length: the error arm cannot happen (and would only fail a signature).
    let Ok(mut mac) = HmacSha256::new_from_slice(key) else { return Vec::new() };
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The key a secret signs with on `date` (`20261203`) in `region` for `service`.
pub fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> Vec<u8> {
    let key = hmac(format!("AWS4{secret}").as_bytes(), date);
    let key = hmac(&key, region);
    let key = hmac(&key, service);
    hmac(&key, "aws4_request")
}

/// What is signed: the canonical request's parts for a request to `path?query` with `headers`
/// (lower-case names, sorted, as signed) and a payload of `payload_hash`.
pub struct Canonical<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub headers: &'a [(String, String)],
    pub payload_hash: &'a str,
}

impl Canonical<'_> {
    fn request(&self) -> String {
        let mut query: Vec<&str> = self.query.split('&').filter(|p| !p.is_empty()).collect();
        query.sort_unstable();
        let mut text =
            format!("{}\n{}\n{}\n", self.method, if self.path.is_empty() { "/" } else { self.path }, query.join("&"));
        for (name, value) in self.headers {
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            let _ = writeln!(text, "{name}:{value}");
        }
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        let _ = write!(text, "\n{}\n{}", names.join(";"), self.payload_hash);
        text
    }

    /// The hex signature with `secret` for `amz_date` (`20261203T080000Z`) and the scope
    /// `date/region/service/aws4_request`.
    pub fn signature(&self, secret: &str, amz_date: &str, date: &str, region: &str, service: &str) -> String {
        let scope = format!("{date}/{region}/{service}/aws4_request");
        let string_to_sign =
            format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex(&Sha256::digest(self.request().as_bytes())));
        hex(&hmac(&signing_key(secret, date, region, service), &string_to_sign))
    }
}

/// The hex SHA-256 of a body, as the canonical request names the payload.
pub fn payload_hash(body: &[u8]) -> String {
    hex(&Sha256::digest(body))
}

/// `(20261202T130501Z, 20261202)` for seconds since the epoch.
pub fn timestamp(seconds: u64) -> (String, String) {
    let t = Utc::of_millis(seconds.saturating_mul(1000));
    let date = format!("{:04}{:02}{:02}", t.year, t.month, t.day);
    (format!("{date}T{:02}{:02}{:02}Z", t.hour, t.minute, t.second), date)
}

/// Seconds since the epoch of an `X-Amz-Date` (`20261203T080000Z`), if it is one.
fn parse_amz_date(text: &str) -> Option<u64> {
    let digits = |range: std::ops::Range<usize>| text.get(range)?.parse::<u64>().ok();
    if text.len() != 16 || text.as_bytes()[8] != b'T' || !text.ends_with('Z') {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (hour, minute, second) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    let (y, m) = if month <= 2 { (year - 1, month + 9) } else { (year, month - 3) };
    let era = y / 400;
    let year_of_era = y - era * 400;
    let day_of_year = (153 * m + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = (era * 146_097 + day_of_era).checked_sub(719_468)?;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second)
}

/// A request as the verifier needs it.
pub struct Received<'a> {
    pub authorization: &'a str,
    pub amz_date: &'a str,
    pub canonical: Canonical<'a>,
}

/// The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`.
pub struct Authorization<'a> {
    pub access_key: &'a str,
    pub date: &'a str,
    pub region: &'a str,
    pub service: &'a str,
    pub signed_headers: Vec<&'a str>,
    pub signature: &'a str,
}

pub fn parse_authorization(header: &str) -> Option<Authorization<'_>> {
    let rest = header.strip_prefix("AWS4-HMAC-SHA256")?.trim_start();
    let field = |name: &str| {
        rest.split(',').map(str::trim).find_map(|part| part.strip_prefix(name).and_then(|p| p.strip_prefix('=')))
    };
    let mut credential = field("Credential")?.split('/');
    let (access_key, date, region, service) =
        (credential.next()?, credential.next()?, credential.next()?, credential.next()?);
    Some(Authorization {
        access_key,
        date,
        region,
        service,
        signed_headers: field("SignedHeaders")?.split(';').collect(),
        signature: field("Signature")?,
    })
}

/// The service name DynamoDB's (and DynamoDB Streams') signatures are scoped to.
const SERVICE: &str = "dynamodb";

const MISMATCH: &str = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

/// Checks a request against the one access key and secret the server accepts, at `now_seconds`.
pub fn verify(received: &Received, access_key: &str, secret: &str, now_seconds: u64) -> Result<(), DynamoError> {
    let invalid = |message: String| DynamoError::new(ErrorKind::InvalidSignature, message);
    let Some(auth) = parse_authorization(received.authorization) else {
        return Err(invalid(MISMATCH.to_string()));
    };
    if auth.access_key != access_key {
        return Err(DynamoError::new(
            ErrorKind::UnrecognizedClient,
            "The security token included in the request is invalid.",
        ));
    }
    // The credential's scope names the region and service it may sign for (DynamoDB's wording,
    // trailing space included; DynamoDB Streams signs as `dynamodb` too).
    if auth.service != SERVICE {
        return Err(invalid(format!("Credential should be scoped to correct service: '{SERVICE}'. ")));
    }
    if auth.region != dynalab_engine::REGION {
        return Err(invalid(format!("Credential should be scoped to a valid region, not '{}'. ", auth.region)));
    }
    let Some(at) = parse_amz_date(received.amz_date) else {
        return Err(invalid(MISMATCH.to_string()));
    };
    let (now_text, _) = timestamp(now_seconds);
    if at + SKEW_SECONDS < now_seconds {
        let (earliest, _) = timestamp(now_seconds - SKEW_SECONDS);
        return Err(invalid(format!(
            "Signature expired: {} is now earlier than {earliest} ({now_text} - 15 min.)",
            received.amz_date
        )));
    }
    if at > now_seconds + SKEW_SECONDS {
        let (latest, _) = timestamp(now_seconds + SKEW_SECONDS);
        return Err(invalid(format!(
            "Signature not yet current: {} is still later than {latest} ({now_text} + 15 min.)",
            received.amz_date
        )));
    }
    let expected = received.canonical.signature(secret, received.amz_date, auth.date, auth.region, auth.service);
    if expected != auth.signature || !received.amz_date.starts_with(auth.date) {
        return Err(invalid(MISMATCH.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_derivation_matches_aws_documented_example() {
        // AWS's documented example: secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, 20120215,
        // us-east-1, iam → f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d.
        let key = signing_key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam");
        assert_eq!(hex(&key), "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    }

    #[test]
    fn dates_read_both_ways() {
        for seconds in [0, 951_782_400, 1_764_676_201, 1_796_287_014] {
            let (amz, _) = timestamp(seconds);
            assert_eq!(parse_amz_date(&amz), Some(seconds), "{amz}");
        }
        assert_eq!(timestamp(1_764_676_201), ("20251202T115001Z".into(), "20251202".into()));
        for bad in ["", "20261303T000000Z", "2026-12-03T00:00:00Z", "20261203T000000", "x0261203T000000Z"] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }

    fn signed(secret: &str, amz_date: &str, body: &[u8]) -> (String, Vec<(String, String)>, String) {
        let headers = vec![
            ("host".to_string(), "127.0.0.1:8000".to_string()),
            ("x-amz-date".to_string(), amz_date.to_string()),
            ("x-amz-target".to_string(), "DynamoDB_20120810.ListTables".to_string()),
        ];
        let hash = payload_hash(body);
        let canonical = Canonical { method: "POST", path: "/", query: "", headers: &headers, payload_hash: &hash };
        let signature = canonical.signature(secret, amz_date, &amz_date[..8], "us-east-1", "dynamodb");
        let authorization = format!(
            "AWS4-HMAC-SHA256 Credential=lab/{}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature={signature}",
            &amz_date[..8]
        );
        (authorization, headers, hash)
    }

    fn check(
        authorization: &str,
        headers: &[(String, String)],
        hash: &str,
        amz_date: &str,
        now: u64,
    ) -> Result<(), DynamoError> {
        let canonical = Canonical { method: "POST", path: "/", query: "", headers, payload_hash: hash };
        verify(&Received { authorization, amz_date, canonical }, "lab", "secret", now)
    }

    #[test]
    fn a_signed_request_passes_and_every_kind_of_wrong_one_gets_dynamodb_s_error() {
        let now = 1_796_287_014;
        let (amz_date, _) = timestamp(now);
        let (auth, headers, hash) = signed("secret", &amz_date, b"{}");
        check(&auth, &headers, &hash, &amz_date, now).expect("valid");
        check(&auth, &headers, &hash, &amz_date, now + 14 * 60).expect("within the skew");
        let error = check(&auth.replace("Credential=lab/", "Credential=other/"), &headers, &hash, &amz_date, now)
            .expect_err("key");
        assert_eq!(
            (error.kind, error.message.as_str()),
            (ErrorKind::UnrecognizedClient, "The security token included in the request is invalid.")
        );
        let (wrong, _, _) = signed("not-the-secret", &amz_date, b"{}");
        let error = check(&wrong, &headers, &hash, &amz_date, now).expect_err("secret");
        assert_eq!((error.kind, error.message.as_str()), (ErrorKind::InvalidSignature, MISMATCH));
        let altered = payload_hash(b"{\"Limit\":1}");
        assert_eq!(
            check(&auth, &headers, &altered, &amz_date, now).expect_err("body").kind,
            ErrorKind::InvalidSignature
        );
        let error = check(&auth, &headers, &hash, &amz_date, now + 16 * 60).expect_err("expired");
        let (later, _) = timestamp(now + 16 * 60);
        let (earliest, _) = timestamp(now + 60);
        assert_eq!(
            error.message,
            format!("Signature expired: {amz_date} is now earlier than {earliest} ({later} - 15 min.)")
        );
        // Signed, and signed right, but scoped to another service or another region.
        for (scope, message) in [
            ("/us-east-1/s3/", "Credential should be scoped to correct service: 'dynamodb'. "),
            ("/eu-west-1/dynamodb/", "Credential should be scoped to a valid region, not 'eu-west-1'. "),
        ] {
            let rescoped = auth.replace("/us-east-1/dynamodb/", scope);
            let error = check(&rescoped, &headers, &hash, &amz_date, now).expect_err(message);
            assert_eq!((error.kind, error.message.as_str()), (ErrorKind::InvalidSignature, message));
        }
        let error = check(&auth, &headers, &hash, &amz_date, now - 16 * 60).expect_err("future");
        let (earlier, _) = timestamp(now - 16 * 60);
        let (latest, _) = timestamp(now - 60);
        assert_eq!(
            error.message,
            format!("Signature not yet current: {amz_date} is still later than {latest} ({earlier} + 15 min.)")
        );
    }
}
