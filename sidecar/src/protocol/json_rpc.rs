//! One message body from the client, checked: a request or notification,
//! a response to a server request, or what JSON-RPC 2.0 says to answer
//! for it (`-32700` for a body that is not JSON, `-32600` for JSON that is
//! not a JSON-RPC message), with the request's id when it has a usable one.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response};

use crate::limits::MAX_MESSAGE_BYTES;

#[derive(Debug)]
pub enum Incoming {
    Request(Request),
    Response(Response),
    /// What to answer, and to which id (`null` when none could be read).
    Invalid {
        id: Id,
        error: Error,
    },
}

/// The answer to a message body over [`MAX_MESSAGE_BYTES`].
pub fn too_large(length: u64) -> Error {
    Error {
        code: ErrorCode::InvalidRequest,
        message: format!(
            "the message of {length} bytes is over the limit of {MAX_MESSAGE_BYTES} bytes \
             (MAX_MESSAGE_BYTES); it was skipped unread"
        )
        .into(),
        data: Some(
            json!({"kind": "messageTooLarge", "length": length, "limit": MAX_MESSAGE_BYTES}),
        ),
    }
}

fn parse_error(why: impl fmt::Display) -> Incoming {
    Incoming::Invalid {
        id: Id::Null,
        error: Error {
            code: ErrorCode::ParseError,
            message: format!("the message is not JSON: {why}").into(),
            data: Some(json!({"kind": "parseError"})),
        },
    }
}

fn invalid(id: Id, why: impl fmt::Display) -> Incoming {
    Incoming::Invalid {
        id,
        error: Error {
            code: ErrorCode::InvalidRequest,
            message: format!("not a JSON-RPC 2.0 message: {why}").into(),
            data: Some(json!({"kind": "invalidRequest"})),
        },
    }
}

/// The top-level members of a message object, each kept unparsed, with a
/// repeated member name refused.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Members, A::Error> {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format!("the member {k:?} is repeated")));
                    }
                    out.push((k, m.next_value()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

pub fn parse(body: &[u8]) -> Incoming {
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        Err(e) => return parse_error(format_args!("it is not UTF-8 ({e})")),
    };
    // Any JSON at all? (NaN, bad escapes, nesting past the parser's depth
    // limit are refused here.)
    let shape: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return parse_error(e),
    };
    if !shape.is_object() {
        let what = match shape {
            Value::Array(_) => "a batch (an array), which LSP does not use",
            _ => "not an object",
        };
        return invalid(Id::Null, what);
    }
    let members = match serde_json::from_str::<Members>(text) {
        Ok(m) => m.0,
        Err(e) => return invalid(Id::Null, e),
    };
    let member = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let id = match member("id").map(|raw| serde_json::from_str::<Id>(raw.get())) {
        None => None,
        Some(Ok(id)) => Some(id),
        Some(Err(_)) => {
            return invalid(Id::Null, "the id must be a number, a string or null");
        }
    };
    let reply_to = id.clone().unwrap_or(Id::Null);
    match member("jsonrpc").map(|raw| raw.get()) {
        Some("\"2.0\"") => {}
        Some(other) => {
            return invalid(reply_to, format_args!("jsonrpc is {other}, not \"2.0\""));
        }
        None => return invalid(reply_to, "jsonrpc \"2.0\" is missing"),
    }
    if let Some(method) = member("method") {
        if serde_json::from_str::<String>(method.get()).is_err() {
            return invalid(reply_to, "the method must be a string");
        }
        return match serde_json::from_value::<Request>(shape) {
            Ok(r) => Incoming::Request(r),
            Err(e) => invalid(reply_to, e),
        };
    }
    if id.is_some() && (member("result").is_some() || member("error").is_some()) {
        return match serde_json::from_value::<Response>(shape) {
            Ok(r) => Incoming::Response(r),
            Err(e) => invalid(reply_to, e),
        };
    }
    invalid(reply_to, "neither a request (no method) nor a response")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(body: &[u8]) -> (Id, i64, String) {
        match parse(body) {
            Incoming::Invalid { id, error } => (id, error.code.code(), error.message.into_owned()),
            other => panic!("accepted {:?}: {other:?}", String::from_utf8_lossy(body)),
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_read() {
        let r = parse(br#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#);
        assert!(matches!(r, Incoming::Request(r) if r.id() == Some(&Id::Number(3))));
        let r = parse(br#"{"jsonrpc":"2.0","method":"exit","params":null}"#);
        assert!(matches!(r, Incoming::Request(r) if r.id().is_none() && r.method() == "exit"));
        let r = parse(br#" {"jsonrpc":"2.0","id":"a","result":null} "#);
        assert!(matches!(r, Incoming::Response(_)));
    }

    #[test]
    fn bad_messages_get_the_error_json_rpc_names() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}{}}}"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        for (body, code, id, says) in [
            (&b"{"[..], -32700, Id::Null, "not JSON"),
            (b"\xff\xfe", -32700, Id::Null, "not UTF-8"),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"m","params":NaN}"#,
                -32700,
                Id::Null,
                "not JSON",
            ),
            (deep.as_bytes(), -32700, Id::Null, "recursion limit"),
            (
                br#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
                -32600,
                Id::Null,
                "batch",
            ),
            (b"7", -32600, Id::Null, "not an object"),
            (
                br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
                -32600,
                Id::Null,
                "\"id\" is repeated",
            ),
            (
                br#"{"jsonrpc":"1.0","id":4,"method":"m"}"#,
                -32600,
                Id::Number(4),
                "not \"2.0\"",
            ),
            (
                br#"{"id":4,"method":"m"}"#,
                -32600,
                Id::Number(4),
                "missing",
            ),
            (
                br#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#,
                -32600,
                Id::Null,
                "the id must be",
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
                -32600,
                Id::Null,
                "the id must be",
            ),
            (
                br#"{"jsonrpc":"2.0","id":"x","method":7}"#,
                -32600,
                Id::String("x".into()),
                "method must be a string",
            ),
            (
                br#"{"jsonrpc":"2.0","id":5}"#,
                -32600,
                Id::Number(5),
                "neither",
            ),
        ] {
            let (got_id, got_code, message) = refused(body);
            assert_eq!((got_code, &got_id), (code, &id), "{message}");
            assert!(message.contains(says), "{message}");
        }
    }

    #[test]
    fn the_size_refusal_names_the_limit() {
        let e = too_large(MAX_MESSAGE_BYTES + 1);
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert!(e.message.contains(&MAX_MESSAGE_BYTES.to_string()));
        assert_eq!(e.data.unwrap()["limit"], MAX_MESSAGE_BYTES);
    }
}
