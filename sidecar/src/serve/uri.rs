//! File URIs and paths in request parameters.
//!
//! Editors send `file://` URIs with percent-encoded paths (VS Code encodes
//! spaces, `#`, `:` and non-ASCII bytes). Only local files are accepted:
//! an empty authority or `localhost`, an absolute path, no query and no
//! fragment.

use std::path::PathBuf;

/// A local path from a `file://` URI.
pub fn file_uri_to_path(uri: &str) -> Result<PathBuf, String> {
    let rest = strip_scheme(uri).ok_or_else(|| format!("{uri:?} is not a file:// URI"))?;
    let rest = rest
        .strip_prefix("//")
        .ok_or_else(|| format!("{uri:?} is not a file:// URI (no // after file:)"))?;
    if rest.contains(['?', '#']) {
        return Err(format!(
            "{uri:?} has a query or fragment; a file URI names a file only"
        ));
    }
    let slash = rest
        .find('/')
        .ok_or_else(|| format!("{uri:?} has no path"))?;
    let host = &rest[..slash];
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return Err(format!(
            "{uri:?} names the host {host:?}; only local files can be captured"
        ));
    }
    let bytes = percent_decode(&rest[slash..]).map_err(|e| format!("{uri:?}: {e}"))?;
    if bytes.contains(&0) {
        return Err(format!("{uri:?} contains a NUL byte"));
    }
    native_path(bytes, cfg!(windows)).map_err(|e| format!("{uri:?} {e}"))
}

/// The local path a URI's decoded path names. On Unix, its bytes as they
/// are. On Windows (`windows`), `/c:/Users/…` (VS Code writes
/// `file:///c%3A/Users/…`) is `c:\Users\…`, and the bytes must be UTF-8;
/// a path without a drive letter is not a local file there.
fn native_path(bytes: Vec<u8>, windows: bool) -> Result<PathBuf, String> {
    if !windows {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            return Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)));
        }
    }
    let text = String::from_utf8(bytes).map_err(|_| "is not UTF-8".to_string())?;
    if !windows {
        return Ok(PathBuf::from(text));
    }
    let drive = text.as_bytes();
    let has_drive = drive.len() >= 3
        && drive[0] == b'/'
        && drive[1].is_ascii_alphabetic()
        && drive[2] == b':'
        && drive.get(3).is_none_or(|&c| c == b'/');
    if !has_drive {
        return Err("names no drive (file:///c:/…); only local files can be captured".into());
    }
    let mut path = text[1..].replace('/', "\\");
    if path.len() == 2 {
        path.push('\\');
    }
    Ok(PathBuf::from(path))
}

/// A local path given either as a `file://` URI or as an absolute path.
pub fn path_or_uri(text: &str, what: &str) -> Result<PathBuf, String> {
    if strip_scheme(text).is_some() {
        return file_uri_to_path(text);
    }
    if text.contains('\0') {
        return Err(format!("the {what} path contains a NUL byte"));
    }
    let p = PathBuf::from(text);
    if p.is_absolute() {
        Ok(p)
    } else {
        Err(format!(
            "the {what} must be an absolute path or a file:// URI, not {text:?}"
        ))
    }
}

/// An optional path parameter: absent, or as [`path_or_uri`] takes it.
pub fn optional_path(text: Option<&str>, what: &str) -> Result<Option<PathBuf>, String> {
    text.map(|t| path_or_uri(t, what)).transpose()
}

fn strip_scheme(text: &str) -> Option<&str> {
    let (scheme, rest) = text.split_at_checked(5)?;
    scheme.eq_ignore_ascii_case("file:").then_some(rest)
}

fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent escape at byte {i}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn decodes_what_vscode_sends() {
        assert_eq!(
            file_uri_to_path("file:///home/u/My%20Lib/Demo/Clean.lean").unwrap(),
            PathBuf::from("/home/u/My Lib/Demo/Clean.lean")
        );
        assert_eq!(
            file_uri_to_path("file:///p/Unicode%F0%9D%94%BD%23.lean").unwrap(),
            PathBuf::from("/p/Unicode𝔽#.lean")
        );
        assert_eq!(
            file_uri_to_path("FILE://localhost/a/b.lean").unwrap(),
            PathBuf::from("/a/b.lean")
        );
    }

    #[test]
    fn windows_drive_letters() {
        let win = |p: &str| native_path(p.as_bytes().to_vec(), true);
        // As VS Code sends them: `file:///c%3A/Users/…` decodes to `/c:/Users/…`.
        let bytes = percent_decode("/c%3A/Users/Ana%20B/Demo/Clean.lean").unwrap();
        assert_eq!(
            native_path(bytes, true).unwrap().to_str(),
            Some("c:\\Users\\Ana B\\Demo\\Clean.lean")
        );
        assert_eq!(win("/D:/x.lean").unwrap().to_str(), Some("D:\\x.lean"));
        assert_eq!(win("/c:").unwrap().to_str(), Some("c:\\"));
        assert!(win("/home/u/x.lean")
            .unwrap_err()
            .contains("names no drive"));
        assert!(win("/c:x.lean").is_err());
        assert!(native_path(vec![b'/', b'c', b':', b'/', 0xff], true)
            .unwrap_err()
            .contains("UTF-8"));
    }

    #[test]
    fn rejects_what_is_not_a_local_file() {
        for (uri, says) in [
            ("untitled:Untitled-1", "is not a file:// URI"),
            ("https://example.com/a.lean", "is not a file:// URI"),
            ("file:/a.lean", "no // after file:"),
            ("file://server/share/a.lean", "names the host \"server\""),
            ("file:///a.lean#L3", "query or fragment"),
            ("file:///a%2.lean", "bad percent escape at byte 2"),
            ("file:///a%00.lean", "NUL byte"),
            ("file://", "has no path"),
        ] {
            let e = file_uri_to_path(uri).unwrap_err();
            assert!(e.contains(says), "{uri}: {e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn paths_must_be_absolute() {
        assert_eq!(
            path_or_uri("/r/x.lsrec", "recording").unwrap(),
            PathBuf::from("/r/x.lsrec")
        );
        assert_eq!(
            path_or_uri("file:///r/x%20y.lsrec", "recording").unwrap(),
            PathBuf::from("/r/x y.lsrec")
        );
        let e = path_or_uri("x.lsrec", "recording").unwrap_err();
        assert_eq!(
            e,
            "the recording must be an absolute path or a file:// URI, not \"x.lsrec\""
        );
    }
}
