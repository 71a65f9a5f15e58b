//! A real viewer reads the profiles: speedscope's built page (the npm package `speedscope`),
//! served on localhost and opened in headless Chromium, loads the pprof file of
//! `tracecap convert --to pprof` and the Chrome JSON of `tracecap convert --to chrome` of the
//! corpus's Orbit captures with samples and apitrace traces with backtraces. Its sandwich view lists every function with its total
//! and self sample counts, which must be the profile's; the Chrome JSON's functions must be the
//! ones of its `stackFrames`. A screenshot of each is kept under the test's scratch directory.
//!
//! Needs speedscope (`$TRACECAP_SPEEDSCOPE`, the package's directory or its `dist/release`, else
//! `$(npm root -g)/speedscope`) and Chromium (`$CHROMIUM`, `chromium` or `chromium-browser`);
//! says SKIPPED when one is missing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use prost::Message;
use tracecap::export::pprof_proto as pb;

/// speedscope's built page: the directory holding its `index.html`.
fn speedscope() -> Option<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("TRACECAP_SPEEDSCOPE") {
        dirs.push(PathBuf::from(dir));
    }
    if let Ok(out) = Command::new("npm").args(["root", "-g"]).output() {
        let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !root.is_empty() {
            dirs.push(Path::new(&root).join("speedscope"));
        }
    }
    dirs.into_iter()
        .flat_map(|d| [d.join("dist/release"), d])
        .find(|d| d.join("index.html").is_file())
}

fn chromium() -> Option<String> {
    let mut names: Vec<String> = std::env::var("CHROMIUM").into_iter().collect();
    names.extend(["chromium".to_string(), "chromium-browser".to_string()]);
    names.into_iter().find(|n| {
        Command::new(n)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Serves `GET /NAME` from `files` (by name) or from `page` (speedscope's files), on a port of
/// its own, until the test ends.
fn serve(page: PathBuf, files: HashMap<String, Vec<u8>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = answer(stream, &page, &files);
        }
    });
    port
}

fn answer(
    mut stream: TcpStream,
    page: &Path,
    files: &HashMap<String, Vec<u8>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // The request's headers are read and ignored.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let name = path
        .trim_start_matches('/')
        .split(['?', '#'])
        .next()
        .unwrap_or("");
    let name = if name.is_empty() { "index.html" } else { name };
    let body = match files.get(name) {
        Some(b) => Some(b.clone()),
        None if !name.contains("..") => std::fs::read(page.join(name)).ok(),
        None => None,
    };
    let kind = match name.rsplit('.').next() {
        Some("html") => "text/html",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("json") => "application/json",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    match body {
        Some(b) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                b.len()
            )?;
            stream.write_all(&b)?;
        }
        None => write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?,
    }
    stream.flush()
}

/// The page's DOM once speedscope has loaded `url` in view `view` (a tall window, so that the
/// sandwich view's table shows every row: room for about 390; taller than 16,384 pixels, the
/// largest canvas software rendering draws, speedscope may draw no row at all).
fn dom(chromium: &str, url: &str) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--use-gl=swiftshader",
            "--enable-unsafe-swiftshader",
            "--virtual-time-budget=15000",
            "--window-size=1400,8000",
            "--dump-dom",
            url,
        ])
        .output()
        .expect("run chromium");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn screenshot(chromium: &str, url: &str, png: &Path) {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--use-gl=swiftshader",
            "--enable-unsafe-swiftshader",
            "--virtual-time-budget=15000",
            "--window-size=1400,900",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        png.metadata().is_ok_and(|m| m.len() > 10_000),
        "no screenshot of {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The text pieces of an HTML document, entities decoded.
fn texts(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in html.split('<') {
        let text = piece.split_once('>').map_or(piece, |(_, t)| t).trim();
        if !text.is_empty() {
            out.push(
                text.replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&amp;", "&"),
            );
        }
    }
    out
}

/// The sandwich view's rows: symbol name -> (total, self) as shown (`6 (17%)`, `5.00ms (72%)`).
fn sandwich(texts: &[String]) -> BTreeMap<String, (String, String)> {
    let start = texts
        .iter()
        .position(|t| t == "Symbol Name")
        .expect("the sandwich view's table");
    let mut rows = BTreeMap::new();
    let mut rest = &texts[start + 1..];
    while let [total, own, name, more @ ..] = rest {
        if !total.ends_with("%)") || !own.ends_with("%)") {
            break;
        }
        rows.insert(name.clone(), (total.clone(), own.clone()));
        rest = more;
    }
    rows
}

/// The sandwich view's rows once speedscope has loaded `url` (asked up to three times: a busy
/// machine may not have drawn the table within Chromium's time budget), and the page's DOM.
fn sandwich_of(chromium: &str, url: &str) -> (BTreeMap<String, (String, String)>, String) {
    let mut html = String::new();
    for _ in 0..3 {
        html = dom(chromium, url);
        let t = texts(&html);
        if t.iter().any(|t| t == "Symbol Name") {
            let rows = sandwich(&t);
            if !rows.is_empty() {
                return (rows, html);
            }
        }
    }
    (BTreeMap::new(), html)
}

/// The count before ` (`: `1432` of `1,432 (75%)`.
fn count(shown: &str) -> u64 {
    let n = shown.split(" (").next().unwrap().replace(',', "");
    n.parse().unwrap_or_else(|_| panic!("a count: {shown:?}"))
}

/// Says why the test checks nothing, on standard error itself (which the test harness does not
/// capture), so that it shows when the test passes.
fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED speedscope check: {why}");
}

#[test]
fn speedscope_shows_the_profiles_functions() {
    let mut files = tracecap_testkit::corpus_paths("orbit", &["real"], "orbit");
    // apitrace traces recorded with backtraces: a sample per call, the call innermost.
    files.extend(tracecap_testkit::corpus_paths("apitrace", &[], "trace"));
    if files.is_empty() {
        skipped("no Orbit corpus");
        return;
    }
    let Some(page) = speedscope() else {
        skipped("speedscope not found (npm install -g speedscope, or TRACECAP_SPEEDSCOPE)");
        return;
    };
    let Some(chromium) = chromium() else {
        skipped("no Chromium (chromium, chromium-browser or $CHROMIUM)");
        return;
    };
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("speedscope");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut checked = 0;
    for capture in &files {
        let stem = capture.file_stem().unwrap().to_string_lossy().to_string();
        let pprof = scratch.join(format!("{stem}.pb.gz"));
        let json = scratch.join(format!("{stem}.json"));
        let mut converted = true;
        for out in [&pprof, &json] {
            let status = Command::new(env!("CARGO_BIN_EXE_tracecap"))
                .arg("convert")
                .arg(capture)
                .arg("-o")
                .arg(out)
                .arg("--quiet")
                .status()
                .unwrap();
            converted &= status.success();
        }
        if !converted {
            println!("{}: not converted, not checked", capture.display());
            continue;
        }
        let Ok(gz) = std::fs::read(&pprof) else {
            continue;
        };
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut bytes)
            .unwrap();
        let profile = pb::Profile::decode(bytes.as_slice()).unwrap();
        let kind = &profile.string_table[profile.sample_type[0].r#type as usize];
        if profile.sample.is_empty() || (kind != "samples" && kind != "calls") {
            println!("{}: no stack samples, not checked", capture.display());
            continue;
        }
        // Each function's samples: those it is in (total) and those it is innermost in (self).
        let s = |i: i64| profile.string_table[i as usize].clone();
        let functions: HashMap<u64, String> =
            profile.function.iter().map(|f| (f.id, s(f.name))).collect();
        let locations: HashMap<u64, String> = profile
            .location
            .iter()
            .map(|l| (l.id, functions[&l.line[0].function_id].clone()))
            .collect();
        let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for sample in &profile.sample {
            let names: Vec<&String> = sample.location_id.iter().map(|l| &locations[l]).collect();
            for name in names.iter().collect::<BTreeSet<_>>() {
                want.entry((*name).clone()).or_default().0 += 1;
            }
            want.entry(names[0].clone()).or_default().1 += 1;
        }
        // speedscope demangles C++ names: mangled ones are not compared by name.
        let mangled = |n: &str| n.starts_with("_Z");

        let mut served = HashMap::new();
        served.insert("p.pb.gz".to_string(), gz.clone());
        served.insert("c.json".to_string(), std::fs::read(&json).unwrap());
        let port = serve(page.clone(), served);
        let url = |file: &str, view: &str| {
            format!("http://127.0.0.1:{port}/index.html#profileURL=http://127.0.0.1:{port}/{file}{view}")
        };

        let (shown, _) = sandwich_of(&chromium, &url("p.pb.gz", "&view=sandwich"));
        // Every function has its row (mangled names shown demangled), the self counts add up
        // to the samples, and each function named as written shows its counts.
        assert_eq!(
            shown.len(),
            want.len(),
            "{}: rows of the sandwich view",
            capture.display()
        );
        let selves: u64 = shown.values().map(|(_, o)| count(o)).sum();
        assert_eq!(selves, profile.sample.len() as u64, "{}", capture.display());
        let got: BTreeMap<String, (u64, u64)> = shown
            .iter()
            .filter(|(n, _)| want.get(*n).is_some_and(|_| !mangled(n)))
            .map(|(n, (t, o))| (n.clone(), (count(t), count(o))))
            .collect();
        let expected: BTreeMap<String, (u64, u64)> =
            want.into_iter().filter(|(n, _)| !mangled(n)).collect();
        assert_eq!(
            got,
            expected,
            "{}: speedscope's sandwich view of the pprof",
            capture.display()
        );
        screenshot(
            &chromium,
            &url("p.pb.gz", ""),
            &scratch.join(format!("{stem}.pprof.png")),
        );

        // Chrome JSON: speedscope reads `stackFrames` and `samples`, one profile per thread;
        // the first one's functions are frames of the document.
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let frames: BTreeSet<String> = doc["stackFrames"]
            .as_object()
            .expect("stackFrames")
            .values()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect();
        let (shown, html) = sandwich_of(&chromium, &url("c.json", "&view=sandwich"));
        std::fs::write(scratch.join(format!("{stem}.chrome.html")), &html).unwrap();
        assert!(
            !shown.is_empty(),
            "{}: speedscope shows no function of the Chrome JSON",
            capture.display()
        );
        // A name not found among the frames is a mangled one speedscope demangled.
        let unknown = shown.keys().filter(|n| !frames.contains(*n)).count();
        let mangled_frames = frames.iter().filter(|n| mangled(n)).count();
        assert!(
            unknown <= mangled_frames && unknown < shown.len(),
            "{}: speedscope shows {unknown} of {} functions that are not frames of stackFrames",
            capture.display(),
            shown.len()
        );
        screenshot(
            &chromium,
            &url("c.json", ""),
            &scratch.join(format!("{stem}.chrome.png")),
        );
        println!(
            "{}: speedscope shows {} functions of the pprof file and {} of the Chrome JSON's first thread; screenshots in {}",
            capture.display(),
            got.len(),
            shown.len(),
            scratch.display()
        );
        checked += 1;
    }
    assert!(checked > 0, "no Orbit capture with samples checked");
}
