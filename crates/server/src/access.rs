//! Who may talk to a local server. DynamoDB's own endpoint answers any origin; a developer's local
//! server holds their data and listens where any web page they visit can reach it, so the defaults
//! are narrower (a documented difference, docs/fidelity.md):
//!
//! - On a loopback address, only requests naming a loopback host (`localhost`, `127.0.0.1`,
//!   `[::1]`) are answered, so a DNS-rebinding page cannot reach it under its own name.
//! - Pages from `localhost`, `127.0.0.1` and `[::1]` origins (any scheme, any port) may call it;
//!   `--cors-origin` adds origins, `*` opens it to every origin, and `null` (sandboxed frames,
//!   `file:` pages) only when it is listed itself. A request from any other page is refused
//!   before it runs, not merely hidden from the page.

use axum::http::{header, HeaderMap, HeaderValue, Response};

/// The access rules of one server.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// The server listens on a loopback address: Host names are checked.
    pub loopback_only: bool,
    /// Origins allowed beside the loopback ones, as given (`https://lab.example.com`, `*`, `null`).
    pub cors_origins: Vec<String>,
}

/// Whether `host` (a Host header's name, without its port) is a loopback name.
fn is_loopback_name(host: &str) -> bool {
    const SUFFIX: &str = ".localhost";
    let host = host.trim_end_matches('.');
    let subdomain = host.len() > SUFFIX.len()
        && host.is_char_boundary(host.len() - SUFFIX.len())
        && host[host.len() - SUFFIX.len()..].eq_ignore_ascii_case(SUFFIX);
    host.eq_ignore_ascii_case("localhost")
        || subdomain
        || host == "[::1]"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// The host part of a `Host` header value or of an origin's authority: `[::1]:8000` → `[::1]`.
fn host_part(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |end| &authority[..=end]);
    }
    authority.rsplit_once(':').map_or(authority, |(host, _)| host)
}

impl Access {
    /// Why a request with these headers is refused, if it is.
    pub fn refusal(&self, headers: &HeaderMap) -> Option<String> {
        if self.loopback_only {
            if let Some(host) = headers.get(header::HOST) {
                let host = host.to_str().unwrap_or("");
                if !is_loopback_name(host_part(host)) {
                    return Some(format!(
                        "Host '{host}' is not a loopback name: a server on a loopback address answers only localhost, 127.0.0.1 and [::1] (protection against DNS rebinding)"
                    ));
                }
            }
        }
        let origin = headers.get(header::ORIGIN)?;
        let origin = origin.to_str().unwrap_or("");
        (!self.allows_origin(origin)).then(|| {
            format!("Origin '{origin}' may not call this server: pages from localhost are allowed, others only with --cors-origin")
        })
    }

    fn allows_origin(&self, origin: &str) -> bool {
        if self.cors_origins.iter().any(|o| o == origin) {
            return true;
        }
        if origin == "null" {
            return false;
        }
        if self.cors_origins.iter().any(|o| o == "*") {
            return true;
        }
        let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        authority.is_some_and(|a| !a.contains('/') && is_loopback_name(host_part(a)))
    }

    /// Adds the headers that let the page that sent `headers` read `response` (its Origin was
    /// allowed, or the request would have been refused).
    pub fn allow_page<B>(headers: &HeaderMap, response: &mut Response<B>) {
        let Some(origin) = headers.get(header::ORIGIN) else { return };
        let answer = response.headers_mut();
        answer.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        answer.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("x-amz-crc32,x-amzn-requestid"));
        answer.append(header::VARY, HeaderValue::from_static("origin"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    #[test]
    fn loopback_servers_answer_loopback_host_names_only() {
        let access = Access { loopback_only: true, cors_origins: Vec::new() };
        for host in ["localhost:8000", "127.0.0.1:8000", "127.0.0.2", "[::1]:8000", "LOCALHOST", "lab.localhost:1"] {
            assert_eq!(access.refusal(&headers(&[("host", host)])), None, "{host}");
        }
        for host in ["evil.example:8000", "127.0.0.1.evil.example", "10.0.0.1:8000", "[::2]:80", "localhost.evil"] {
            assert!(access.refusal(&headers(&[("host", host)])).is_some(), "{host}");
        }
        let open = Access { loopback_only: false, cors_origins: Vec::new() };
        assert_eq!(open.refusal(&headers(&[("host", "lab.example:8000")])), None, "a non-loopback bind names itself");
    }

    #[test]
    fn pages_from_localhost_may_call_and_others_need_listing() {
        let local = Access { loopback_only: true, cors_origins: Vec::new() };
        let origin = |o: &str| headers(&[("host", "127.0.0.1:8000"), ("origin", o)]);
        for allowed in ["http://localhost:8080", "http://127.0.0.1:3000", "https://[::1]:8443", "http://localhost"] {
            assert_eq!(local.refusal(&origin(allowed)), None, "{allowed}");
        }
        for refused in ["https://evil.example", "null", "http://localhost.evil.example", "file://", "http://10.1.1.1"] {
            assert!(local.refusal(&origin(refused)).is_some(), "{refused}");
        }
        let listed = Access { loopback_only: true, cors_origins: vec!["https://lab.example".into()] };
        assert_eq!(listed.refusal(&origin("https://lab.example")), None);
        assert!(listed.refusal(&origin("https://other.example")).is_some());
        let open = Access { loopback_only: true, cors_origins: vec!["*".into()] };
        assert_eq!(open.refusal(&origin("https://any.example")), None);
        assert!(open.refusal(&origin("null")).is_some(), "null only when listed itself");
        let null = Access { loopback_only: true, cors_origins: vec!["null".into()] };
        assert_eq!(null.refusal(&origin("null")), None);
    }
}
