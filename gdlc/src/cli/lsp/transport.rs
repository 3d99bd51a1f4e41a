//! The language server's standard input and output: the Language Server Protocol's framing
//! (`Content-Length` headers) around `lsp_server`'s messages, read by a thread that survives
//! bad input, and written by another.
//!
//! `lsp_server`'s own stdio reader stops at the first malformed message; this one reports it
//! ([`Incoming::Malformed`], answered with a parse error when the message had an id) and reads
//! on from the next header. A header line longer than [`MAX_HEADER_LINE`] or a body longer
//! than [`MAX_BODY`] is skipped, not held in memory.
//!
//! The messages are passed on in batches: a message with those that follow it in what was
//! read from the input already (at most [`MAX_BATCH`]), so that the main loop sees a
//! `$/cancelRequest` sent with the requests it cancels before it answers them.

use std::io::{BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, RequestId};

/// The longest header line kept; the rest of a longer one is skipped.
pub const MAX_HEADER_LINE: usize = 8 * 1024;

/// The largest message body read (a 100 MB document, escaped, fits); a longer one is skipped.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

/// The most messages passed on together.
pub const MAX_BATCH: usize = 256;

/// What the reader thread passes on.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    /// A message that could not be read: why, and its id when the body was JSON with one.
    Malformed {
        why: String,
        id: Option<RequestId>,
    },
}

/// Starts the thread that reads messages from `input` into the returned channel, in batches
/// (never empty); the channel closes when `input` ends (or fails).
pub fn spawn_reader(
    input: BufReader<impl Read + Send + 'static>,
) -> std::io::Result<(Receiver<Vec<Incoming>>, JoinHandle<()>)> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let handle = std::thread::Builder::new()
        .name("lsp-reader".to_string())
        .spawn(move || read_all(input, &tx))?;
    Ok((rx, handle))
}

/// Starts the thread that writes the messages sent to the returned channel on `output`, until
/// every sender is dropped or the output fails.
pub fn spawn_writer(
    mut output: impl Write + Send + 'static,
) -> std::io::Result<(Sender<Message>, JoinHandle<()>)> {
    let (tx, rx) = crossbeam_channel::unbounded::<Message>();
    let handle = std::thread::Builder::new()
        .name("lsp-writer".to_string())
        .spawn(move || {
            for message in rx {
                if let Err(e) = message.write(&mut output) {
                    tracing::error!("gdlc lsp: cannot write a message: {e}");
                    return;
                }
            }
        })?;
    Ok((tx, handle))
}

fn read_all(mut input: BufReader<impl Read>, tx: &Sender<Vec<Incoming>>) {
    let mut ended = false;
    while !ended {
        let mut batch = Vec::new();
        // One message, waited for, then those whose start is read already. (The rest of a
        // message begun in the buffer is waited for: clients write whole messages.)
        loop {
            match read_frame(&mut input) {
                Ok(Frame::End) => ended = true,
                Ok(Frame::Body(body)) => batch.push(parse(&body)),
                Ok(Frame::Skipped(why)) => batch.push(Incoming::Malformed { why, id: None }),
                Err(e) => {
                    tracing::warn!("gdlc lsp: standard input failed: {e}");
                    ended = true;
                }
            }
            if ended || input.buffer().is_empty() || batch.len() >= MAX_BATCH {
                break;
            }
        }
        if !batch.is_empty() && tx.send(batch).is_err() {
            return;
        }
    }
}

/// A message body as a message, or why it is none.
fn parse(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => Incoming::Message(m),
        Err(e) => {
            // The id of a request that is JSON but no message, so that its error names it.
            let id = serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| serde_json::from_value::<RequestId>(v.get("id")?.clone()).ok());
            Incoming::Malformed {
                why: format!("malformed message: {e}"),
                id,
            }
        }
    }
}

enum Frame {
    Body(Vec<u8>),
    /// A header or body that was skipped, and why.
    Skipped(String),
    End,
}

/// Reads one framed message: header lines up to an empty one, then `Content-Length` bytes.
fn read_frame(input: &mut impl BufRead) -> std::io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut bad_header = None;
    loop {
        let Some(line) = read_line(input)? else {
            return Ok(match (length, bad_header) {
                (None, None) => Frame::End,
                _ => Frame::Skipped("the input ended inside a header".to_string()),
            });
        };
        let mut line = line.trim_end_matches(['\r', '\n']);
        // Resynchronise after a truncated message: its unread rest runs into the next header.
        if let Some(i) = line.to_ascii_lowercase().find("content-length:")
            && i > 0
        {
            tracing::warn!("gdlc lsp: skipped {i} bytes before a header");
            line = &line[i..];
        }
        if line.is_empty() {
            match (length, bad_header.take()) {
                (Some(n), None) => break read_body(input, n),
                (_, Some(why)) => return Ok(Frame::Skipped(why)),
                // Blank lines between messages are tolerated.
                (None, None) => continue,
            }
        }
        match line.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length `{}`", value.trim())),
                }
            }
            Some(_) => {} // Content-Type and others.
            None => {
                let shown: String = line.chars().take(40).collect();
                bad_header = Some(format!("malformed header line `{shown}`"));
            }
        }
    }
}

fn read_body(input: &mut impl BufRead, length: usize) -> std::io::Result<Frame> {
    if length > MAX_BODY {
        let skipped = std::io::copy(&mut input.take(length as u64), &mut std::io::sink())?;
        return Ok(Frame::Skipped(format!(
            "a message of {length} bytes (over {MAX_BODY}) skipped ({skipped} read)"
        )));
    }
    let mut body = Vec::new();
    input.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(Frame::Skipped(format!(
            "the input ended {} bytes into a message of {length}",
            body.len()
        )));
    }
    Ok(Frame::Body(body))
}

/// One line (with its end), at most [`MAX_HEADER_LINE`] bytes of it kept, invalid UTF-8
/// replaced; `None` at the end of the input.
fn read_line(input: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut kept = Vec::new();
    let mut any = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        any = true;
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (&buffer[..=i], true),
            None => (buffer, false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        input.consume(used);
        if done {
            break;
        }
    }
    Ok(any.then(|| String::from_utf8_lossy(&kept).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn frames(input: &[u8]) -> Vec<String> {
        let (rx, handle) = spawn_reader(BufReader::new(Cursor::new(input.to_vec()))).unwrap();
        handle.join().unwrap();
        rx.try_iter()
            .flatten()
            .map(|i| match i {
                Incoming::Message(m) => format!("{m:?}"),
                Incoming::Malformed { why, id } => format!("bad {id:?} {why}"),
            })
            .collect()
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn what_was_read_at_once_is_one_batch() {
        let ok = framed(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        let sizes = |count: usize| {
            let input = ok.repeat(count).into_bytes();
            let (rx, handle) =
                spawn_reader(BufReader::with_capacity(1 << 20, Cursor::new(input))).unwrap();
            handle.join().unwrap();
            rx.try_iter().map(|b| b.len()).collect::<Vec<_>>()
        };
        assert_eq!(sizes(3), [3]);
        assert_eq!(sizes(MAX_BATCH + 2), [MAX_BATCH, 2]);
        assert!(sizes(0).is_empty());
        // A buffer of one message: the messages come in several batches, none lost.
        let input = ok.repeat(10).into_bytes();
        let (rx, handle) =
            spawn_reader(BufReader::with_capacity(ok.len(), Cursor::new(input))).unwrap();
        handle.join().unwrap();
        let batches: Vec<usize> = rx.try_iter().map(|b| b.len()).collect();
        assert!(batches.len() > 1, "{batches:?}");
        assert_eq!(batches.iter().sum::<usize>(), 10);
    }

    #[test]
    fn reads_on_after_bad_input() {
        let ok = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut input = b"\x00\xff garbage\r\n\r\n".to_vec();
        input.extend(framed(r#"{"jsonrpc":"2.0","id":7,"error":5}"#).bytes());
        input.extend(framed("{not json").bytes());
        input.extend(framed(ok).bytes());
        // A message shorter than it says swallows the start of the next one, whose rest runs
        // into the header after it: that one is read.
        input.extend(b"Content-Length: 30\r\n\r\n{\"a\"}");
        input.extend(framed(ok).bytes());
        input.extend(framed(ok).bytes());
        input.extend(b"Content-Length: 100\r\n\r\n{\"a\"");
        let got = frames(&input);
        assert_eq!(got.len(), 7, "{got:#?}");
        assert!(
            got[0].starts_with("bad None malformed header line"),
            "{}",
            got[0]
        );
        assert!(
            got[1].starts_with("bad Some(RequestId(I32(7)))"),
            "{}",
            got[1]
        );
        assert!(
            got[2].starts_with("bad None malformed message"),
            "{}",
            got[2]
        );
        assert!(got[3].contains("initialized"), "{}", got[3]);
        assert!(
            got[4].starts_with("bad None malformed message"),
            "{}",
            got[4]
        );
        assert!(got[5].contains("initialized"), "{}", got[5]);
        assert_eq!(
            got[6],
            "bad None the input ended 4 bytes into a message of 100"
        );
    }
}
