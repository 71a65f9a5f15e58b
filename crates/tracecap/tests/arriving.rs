//! Reading bytes as they arrive: a followed file that grows in pieces, stops (idle, shrunk,
//! replaced), streams, and the push loop over a toy parser.

use std::io::Write;
use std::time::{Duration, Instant};

use tracecap::open::{Arrival, Arriving, Stop};
use tracecap::push::{pump, PumpError, PushParse};
use tracecap_wire::Pushed;

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tracecap-arriving-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Everything the source gives until it stops, and why it stopped.
fn drain(a: &mut Arriving) -> (Vec<u8>, Stop) {
    let mut bytes = Vec::new();
    loop {
        match a.read_more(&mut bytes).unwrap() {
            Arrival::More(n) => assert!(n > 0),
            Arrival::Stopped(why) => return (bytes, why),
        }
    }
}

#[test]
fn a_followed_file_is_read_as_it_grows_until_it_is_idle() {
    let path = temp("grows");
    std::fs::write(&path, b"").unwrap();
    let writer_path = path.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&writer_path)
            .unwrap();
        let mut written = Vec::new();
        for i in 0..40u32 {
            let piece: Vec<u8> = (0..(i * 977 % 5000)).map(|b| (b ^ i) as u8).collect();
            f.write_all(&piece).unwrap();
            f.flush().unwrap();
            written.extend_from_slice(&piece);
            std::thread::sleep(Duration::from_millis(u64::from(i % 3) * 10));
        }
        written
    });
    let mut a = Arriving::follow(&path, Some(Duration::from_millis(600))).unwrap();
    let (bytes, why) = drain(&mut a);
    let written = writer.join().unwrap();
    assert_eq!(why, Stop::Idle(Duration::from_millis(600)));
    assert_eq!(bytes.len(), written.len());
    assert!(
        bytes == written,
        "the bytes followed differ from the bytes written"
    );
    assert_eq!(a.position(), written.len() as u64);
}

#[test]
fn a_followed_file_that_shrinks_or_is_replaced_is_reported() {
    let path = temp("shrinks");
    std::fs::write(&path, vec![7u8; 10_000]).unwrap();
    let mut a = Arriving::follow(&path, Some(Duration::from_secs(30))).unwrap();
    let mut bytes = Vec::new();
    while bytes.len() < 10_000 {
        assert!(matches!(a.read_more(&mut bytes).unwrap(), Arrival::More(_)));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100)
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        a.read_more(&mut bytes).unwrap(),
        Arrival::Stopped(Stop::Shrunk { size: 100 })
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    let path = temp("replaced");
    std::fs::write(&path, b"abc").unwrap();
    let mut a = Arriving::follow(&path, Some(Duration::from_secs(30))).unwrap();
    let mut bytes = Vec::new();
    assert_eq!(a.read_more(&mut bytes).unwrap(), Arrival::More(3));
    let other = temp("replacement");
    std::fs::write(&other, b"abcdef").unwrap();
    std::fs::rename(&other, &path).unwrap();
    assert_eq!(
        a.read_more(&mut bytes).unwrap(),
        Arrival::Stopped(Stop::Replaced)
    );
}

#[test]
fn a_stream_ends_when_its_writer_closes_it() {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let mut a = Arriving::stream(
        Box::new(std::io::Cursor::new(data.clone())),
        std::path::Path::new("test stream"),
    );
    let (bytes, why) = drain(&mut a);
    assert_eq!(why, Stop::Closed);
    assert!(bytes == data);
    // A directory is refused, naming it.
    let dir = std::env::temp_dir();
    let e = Arriving::follow(&dir, None).unwrap_err();
    assert!(e.to_string().contains(&dir.display().to_string()), "{e}");
}

/// A toy format: records of a length byte and that many bytes; a zero length ends the capture.
struct Toy {
    offset: u64,
}

impl PushParse for Toy {
    type Item<'a> = (u64, &'a [u8]);
    type Error = u64;

    fn parse<'a>(&'a mut self, data: &'a [u8], eof: bool) -> Result<Pushed<(u64, &'a [u8])>, u64> {
        let Some(&len) = data.first() else {
            return if eof {
                Ok(Pushed::End)
            } else {
                Ok(Pushed::NeedMore { hint: Some(1) })
            };
        };
        if len == 0 {
            return Ok(Pushed::End);
        }
        let Some(body) = data.get(1..=usize::from(len)) else {
            return if eof {
                Err(self.offset)
            } else {
                Ok(Pushed::NeedMore { hint: None })
            };
        };
        let at = self.offset;
        self.offset += 1 + u64::from(len);
        Ok(Pushed::Item {
            consumed: 1 + usize::from(len),
            item: (at, body),
        })
    }

    fn offset(&self) -> u64 {
        self.offset
    }
}

fn toy_file(records: usize) -> Vec<u8> {
    let mut f = Vec::new();
    for i in 0..records {
        let len = 1 + (i * 37 % 250) as u8;
        f.push(len);
        f.extend((0..len).map(|b| b ^ i as u8));
    }
    f
}

#[test]
fn the_push_loop_yields_every_record_and_holds_a_bounded_buffer() {
    let mut file = toy_file(20_000);
    let body = file.len() as u64;
    file.extend_from_slice(&[0, 9, 9, 9]); // the end mark, then bytes after it
    let mut a = Arriving::stream(Box::new(std::io::Cursor::new(file.clone())), "toy".as_ref());
    let mut parser = Toy { offset: 0 };
    let mut buffer = Vec::new();
    let mut seen = 0u64;
    let mut most = 0usize;
    let pumped = pump(
        &mut a,
        &mut parser,
        &mut buffer,
        |(at, body): (u64, &[u8])| {
            assert_eq!(at, seen);
            seen += 1 + body.len() as u64;
            Ok::<(), ()>(())
        },
    )
    .unwrap();
    most = most.max(buffer.capacity());
    assert_eq!(seen, body);
    assert_eq!(pumped.parsed, body);
    assert_eq!(pumped.read, file.len() as u64);
    assert_eq!(
        pumped.stop, None,
        "the end mark ends the loop before the stream closes"
    );
    assert!(most <= 3 * tracecap::open::PIECE, "buffer grew to {most}");

    // Cut inside a record: the parser's fault at that record's offset.
    let cut = &file[..1000];
    let mut a = Arriving::stream(Box::new(std::io::Cursor::new(cut.to_vec())), "toy".as_ref());
    let mut parser = Toy { offset: 0 };
    let mut last = 0;
    let e = pump(
        &mut a,
        &mut parser,
        &mut Vec::new(),
        |(at, _): (u64, &[u8])| {
            last = at;
            Ok::<(), ()>(())
        },
    )
    .unwrap_err();
    let PumpError::Parse(at) = e else {
        panic!("{e:?}")
    };
    assert!(at > last && at < 1000);
}

/// A reader that gives its bytes in pieces of 1 to `max` bytes, sizes drawn at random.
struct Pieces {
    data: Vec<u8>,
    at: usize,
    rng: u64,
    max: usize,
}

impl std::io::Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let want = 1 + (self.rng % self.max as u64) as usize;
        let rest = &self.data[self.at..];
        let n = want.min(buf.len()).min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The Chrome JSON of an apitrace trace and how its conversion ended: whole, or arriving in
/// pieces of at most `max` bytes.
fn apitrace_converted(data: &[u8], max: Option<usize>) -> (Vec<u8>, Result<(), String>) {
    use tracecap::adapter::apitrace::{convert, convert_arriving};
    let mut sink = tracecap::export::ChromeJson::new(Vec::new()).unwrap();
    let result = match max {
        None => convert(data, &mut sink).map_err(|e| e.to_string()),
        Some(max) => {
            let pieces = Pieces {
                data: data.to_vec(),
                at: 0,
                rng: 0x2545_f491_4f6c_dd1d ^ data.len() as u64,
                max,
            };
            let path = std::path::Path::new("pieces");
            let mut source = Arriving::stream(Box::new(pieces), path);
            match convert_arriving(&mut source, &mut Vec::new(), &mut sink)
                .unwrap()
                .unwrap()
            {
                Ok(pumped) => {
                    assert_eq!(pumped.read, data.len() as u64);
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            }
        }
    };
    (sink.finish().unwrap(), result)
}

/// apitrace traces in every container (snappy, gzip, brotli, zstd with and without the seek
/// table), sound, cut short and with bytes changed, converted as they arrive in small pieces,
/// give what the whole-file conversion gives, faults included: gzip, brotli and zstd streams
/// are decoded as they arrive, not read whole first.
#[test]
fn apitrace_in_every_container_converts_as_it_arrives() {
    use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
    let mut w = Writer::new(6, 6, &[(b"process.name", b"arriving")]);
    w.function(0, b"glClear", &[b"mask"]);
    w.function(1, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    for i in 0..4000u64 {
        let thread = i % 3;
        let no = w.enter(thread, i % 2, &[WDetail::Arg(0, WValue::UInt(i * 7919))]);
        w.leave(
            no,
            &[WDetail::Ret(WValue::Blob(vec![i as u8; (i % 40) as usize]))],
        );
    }
    let stream = w.finish();
    let files = [
        ("snappy", write::snappy(&stream, 20_000)),
        ("gzip", write::gzip(&stream)),
        ("brotli", write::brotli(&stream)),
        ("zstd", write::zstd(&stream, 20_000, false)),
        ("zstd-seekable", write::zstd(&stream, 20_000, true)),
    ];
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for (name, file) in files {
        let mut cases = vec![("whole".to_string(), file.clone())];
        for _ in 0..3 {
            let cut = 4 + next(file.len() - 4);
            cases.push((format!("cut at {cut}"), file[..cut].to_vec()));
            let mut changed = file.clone();
            let at = 4 + next(file.len() - 4);
            changed[at] ^= 1 << next(8);
            cases.push((format!("bit changed at {at}"), changed));
        }
        for (what, case) in &cases {
            let whole = apitrace_converted(case, None);
            if what == "whole" {
                assert!(whole.1.is_ok(), "{name}: {:?}", whole.1);
                assert!(whole.0.len() > 100_000, "{name}");
            }
            for max in [1, 700, 70_000] {
                let arrived = apitrace_converted(case, Some(max));
                assert!(
                    arrived == whole,
                    "{name} {what}, pieces of up to {max}: {:?} against {:?}",
                    arrived.1,
                    whole.1
                );
            }
        }
    }
}

/// A reader that gives `data`, then fails: what was converted before the failure shows what
/// was converted as the bytes arrived.
struct ThenFails {
    data: Vec<u8>,
    at: usize,
}

impl std::io::Read for ThenFails {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.at..];
        if rest.is_empty() {
            return Err(std::io::Error::other("the source failed"));
        }
        let n = buf.len().min(rest.len()).min(4096);
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// A gzip, brotli or zstd trace whose source fails before it ends has had its calls converted
/// already: they were converted as their bytes arrived, not once the source ended.
#[test]
fn apitrace_streams_are_converted_before_their_source_ends() {
    use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
    let mut w = Writer::new(6, 6, &[]);
    w.function(0, b"glClear", &[b"mask"]);
    for i in 0..20_000u64 {
        let no = w.enter(0, 0, &[WDetail::Arg(0, WValue::UInt(i))]);
        w.leave(no, &[]);
    }
    let stream = w.finish();
    for (name, file) in [
        ("gzip", write::gzip(&stream)),
        ("brotli", write::brotli(&stream)),
        ("zstd", write::zstd(&stream, 20_000, true)),
    ] {
        let source = ThenFails { data: file, at: 0 };
        let mut source = Arriving::stream(Box::new(source), std::path::Path::new("failing"));
        let (stats, arrived) = tracecap::adapter::convert_arriving(
            tracecap::Format::Apitrace,
            &mut source,
            &mut Vec::new(),
            tracecap::timeline::Discard,
        )
        .unwrap();
        assert!(arrived.is_err(), "{name}: the source's failure is reported");
        assert!(
            stats.slices > 10_000,
            "{name}: {} calls converted before the source failed",
            stats.slices
        );
    }
}
