//! The backends of this build: what each can do, its module options, and how
//! those options become a typed configuration before anything runs. Checking
//! ([`configure`]) is separate from construction ([`Choice::build`], which a
//! run calls on every task).

use std::fmt;
use std::sync::Arc;

use super::config::{BackendInfo, Capabilities, Config, Context, Demands, Given, Module};
use super::featured::{Featured, FEATURED};
use super::Backend;
use crate::options::ModuleOption;

/// Every backend of this build.
pub fn registry() -> &'static [BackendInfo] {
    &[
        super::posix::INFO,
        super::aio::INFO,
        super::dummy::INFO,
        super::mmap::INFO,
        #[cfg(feature = "mpi")]
        super::mpiio::INFO,
        #[cfg(feature = "hdf5")]
        super::hdf5::INFO,
        super::s3::INFO,
        super::s3::LIBS3_INFO,
        super::s3::CURL_INFO,
    ]
}

/// The backends a cargo feature adds that this build lacks.
fn unbuilt() -> impl Iterator<Item = &'static Featured> {
    FEATURED.iter().filter(|f| !built(f.name))
}

/// Whether this build has the backend `name`.
fn built(name: &str) -> bool {
    registry().iter().any(|b| b.name == name)
}

/// Other IOR APIs, which pario does not have.
const NOT_SUPPORTED: &[&str] = &[
    "NCMPI", "S3-4C", "DFS", "DAOS", "HDFS", "RADOS", "CEPHFS", "IME", "GFARM", "PMDK", "LIBNFS",
];

/// Why this build cannot run `api`.
fn missing(api: &str) -> String {
    let names: Vec<&str> = registry().iter().map(|b| b.name).collect();
    if let Some(r) = unbuilt().find(|r| r.name.eq_ignore_ascii_case(api)) {
        return format!("-a {api}: this API {}", r.why);
    }
    if NOT_SUPPORTED.iter().any(|n| n.eq_ignore_ascii_case(api)) {
        return format!("-a {api}: this API is not supported by pario");
    }
    format!(
        "-a {api}: unknown API (this build has {})",
        names.join(", ")
    )
}

/// The backend a module option belongs to (`posix.odirect` → POSIX): the
/// first of the registry that takes it (a backend that takes another's
/// options comes after it), or a backend a cargo feature adds.
pub fn module_of(option: &str) -> Option<&'static str> {
    registry()
        .iter()
        .find(|b| b.options.takes(option))
        .map(|b| b.name)
        .or_else(|| {
            FEATURED
                .iter()
                .find(|f| f.options.takes(option))
                .map(|f| f.name)
        })
}

/// Every backend's options table, built or not, in the same order in
/// every build (a cargo feature's backends last, from their plain-data
/// tables), with the cargo feature it needs.
fn tables() -> impl Iterator<Item = (&'static str, &'static dyn Module, Option<&'static str>)> {
    let plain = registry()
        .iter()
        .filter(|b| FEATURED.iter().all(|f| f.name != b.name))
        .map(|b| (b.name, b.options, None));
    plain.chain(
        FEATURED
            .iter()
            .map(|f| (f.name, f.options, Some(f.feature))),
    )
}

/// Every backend's name, built or not, in [`all_module_options`]'s order
/// (the reference's sections).
pub fn documented_backends() -> Vec<&'static str> {
    tables().map(|(name, _, _)| name).collect()
}

/// The module options of every backend, each once, with the backend it
/// belongs to (for the option grammars and their help), in every build:
/// a cargo feature's backend's options say so in their help (`(needs a
/// build with --features mpi)`). A backend that takes another's option with a default of
/// its own (S3-libs3's `s3.layout`) has it said in the option's help:
/// `(-a S3-libs3: fragments)`.
pub fn all_module_options() -> impl Iterator<Item = (&'static str, ModuleOption)> {
    let mut listed: Vec<(&str, ModuleOption)> = Vec::new();
    for (name, options, feature) in tables() {
        for mut o in options.options() {
            match listed.iter_mut().find(|(_, l)| l.name == o.name) {
                None => {
                    if let Some(feature) = feature {
                        let note = format!(" (needs a build with --features {feature})");
                        o.help.to_mut().push_str(&note);
                    }
                    listed.push((name, o))
                }
                Some((_, l)) if l.shown != o.shown => {
                    let own = format!(" (-a {name}: {})", o.shown);
                    l.help.to_mut().push_str(&own);
                }
                Some(_) => {}
            }
        }
    }
    listed.into_iter()
}

/// The options `given` make for `api`'s backend when its options type is
/// `O` (`None`: another backend, or another type), read but not checked.
pub fn options_of<O: 'static>(api: &str, given: &Given) -> Option<Result<O, String>> {
    let info = registry()
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(api))?;
    match info.options.read(given) {
        Ok(any) => any.downcast::<O>().ok().map(|o| Ok(*o)),
        Err(e) => Some(Err(e)),
    }
}

/// The backends of this build that have what `wanted` asks for, in registry
/// order (for help texts: `POSIX|DUMMY|MMAP`).
pub fn names_with(wanted: fn(&Capabilities) -> bool) -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|b| wanted(&b.capabilities))
        .map(|b| b.name)
        .collect()
}

/// The `-a` help's list, the same in every build: every backend that has
/// what `wanted` asks for, built or not, the ones a cargo feature adds
/// last with the build they need (`POSIX|...|MPIIO|HDF5 (MPIIO: --features
/// mpi; HDF5: --features hdf5)`).
pub fn api_list(wanted: fn(&Capabilities) -> bool) -> String {
    let plain = registry()
        .iter()
        .filter(|b| wanted(&b.capabilities) && FEATURED.iter().all(|f| f.name != b.name));
    let featured: Vec<&Featured> = FEATURED
        .iter()
        .filter(|f| wanted(&f.capabilities))
        .collect();
    let names: Vec<&str> = plain
        .map(|b| b.name)
        .chain(featured.iter().map(|f| f.name))
        .collect();
    let mut out = names.join("|");
    if !featured.is_empty() {
        let needs: Vec<String> = featured
            .iter()
            .map(|f| format!("{}: --features {}", f.name, f.feature))
            .collect();
        out.push_str(&format!(" ({})", needs.join("; ")));
    }
    out
}

/// Like [`names_with`], and where this build has none, the backends a
/// rebuild would add (for messages that say what to use instead).
pub fn names_able(wanted: fn(&Capabilities) -> bool) -> Vec<&'static str> {
    let built = names_with(wanted);
    if !built.is_empty() {
        return built;
    }
    unbuilt()
        .filter(|r| wanted(&r.capabilities))
        .map(|r| r.name)
        .collect()
}

/// `A`, `A or B`, `A, B or C`.
pub fn either(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A checked backend: which one, and its typed configuration.
#[derive(Clone)]
pub struct Choice {
    info: &'static BackendInfo,
    config: Arc<dyn Config>,
}

impl fmt::Debug for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.info.name, self.config)
    }
}

impl Choice {
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    pub fn capabilities(&self) -> Capabilities {
        self.info.capabilities
    }

    pub fn alignment(&self) -> Option<u64> {
        self.config.alignment()
    }

    pub fn evicts(&self) -> bool {
        self.config.evicts()
    }

    /// Makes the backend of a run; every task calls it.
    pub fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        self.config
            .build(context)
            .map_err(|e| format!("-a {}: {e}", self.info.name))
    }

    pub fn exact_file_size(&self) -> bool {
        self.config.exact_file_size()
    }

    /// Refuses what the backend cannot run (see [`Config::refuse`]).
    pub fn refuse(&self, demands: &Demands) -> Result<(), String> {
        self.config.refuse(demands)
    }

    /// DUMMY with its defaults (`--dryRun`).
    pub fn dummy() -> Choice {
        configure("DUMMY", &Given::new()).expect("DUMMY's defaults are valid")
    }
}

/// Why `--name` is refused: its backend is not in this build.
fn not_built(name: &str) -> String {
    let owner = name.split('.').next().unwrap_or(name).to_uppercase();
    let feature = FEATURED
        .iter()
        .find(|r| r.name == owner)
        .map_or("mpi", |r| r.feature);
    format!(
        "--{name} needs -a {owner}, which this build does not have (rebuild with '--features {feature}')"
    )
}

/// Checks `api` and the module options given: every option must belong to
/// that backend and hold a valid value. Touches nothing.
pub fn configure(api: &str, options: &Given) -> Result<Choice, String> {
    let info = registry()
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(api))
        .ok_or_else(|| missing(api))?;
    let config = info
        .options
        .configure(options)
        .map_err(|e| format!("-a {}: {e}", info.name))?;
    if let Some(name) = options.keys().find(|name| !info.options.takes(name)) {
        return Err(match module_of(name) {
            Some(owner) if built(owner) => {
                format!("--{name} applies to -a {owner}, not -a {}", info.name)
            }
            _ => not_built(name),
        });
    }
    Ok(Choice {
        info,
        config: Arc::from(config),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::config::given;

    #[test]
    fn capabilities_decide_the_lists() {
        assert_eq!(
            names_with(|c| c.metadata),
            ["POSIX", "AIO", "DUMMY", "S3", "S3-libs3", "S3-curl"]
        );
        #[cfg(not(feature = "mpi"))]
        assert_eq!(names_able(|c| c.collective), ["MPIIO", "HDF5"]);
        assert_eq!(either(&["POSIX", "DUMMY", "MMAP"]), "POSIX, DUMMY or MMAP");
        assert_eq!(either(&["POSIX"]), "POSIX");
    }

    #[test]
    fn each_option_is_listed_once_under_the_backend_it_names() {
        let listed: Vec<(&str, ModuleOption)> = all_module_options().collect();
        for (i, (backend, o)) in listed.iter().enumerate() {
            let prefix = o.name.split('.').next().unwrap();
            assert!(
                prefix.eq_ignore_ascii_case(backend),
                "{} under {backend}",
                o.name
            );
            assert_eq!(module_of(o.name), Some(*backend));
            assert!(
                listed[..i].iter().all(|(_, l)| l.name != o.name),
                "{}",
                o.name
            );
        }
        // Inherited options: a backend takes them, the owner lists them.
        let aio = &registry()[1];
        assert!(aio.options.takes("POSIX.ODIRECT") && aio.options.takes("posix.evict"));
        for info in registry().iter().filter(|b| b.name.starts_with("S3-")) {
            assert!(info.options.takes("s3.layout"), "{}", info.name);
        }
        // The help's defaults are the options types' own.
        let shown = |name: &str| {
            listed
                .iter()
                .find(|(_, o)| o.name == name)
                .unwrap()
                .1
                .shown
                .clone()
        };
        assert_eq!(shown("aio.max-pending"), "128");
        assert_eq!(shown("s3.layout"), "object");
        assert_eq!(shown("S3-libs3.bucket-name-prefix"), "ior");
        assert_eq!(shown("S3-curl.timeout"), "5");
        assert_eq!(shown("s3.region"), "");
        // An heir's own default is said in the owner's help.
        let layout = listed.iter().find(|(_, o)| o.name == "s3.layout").unwrap();
        assert!(layout.1.help.ends_with(" (-a S3-libs3: fragments)"));
        let odirect = listed.iter().find(|(_, o)| o.name == "posix.odirect");
        assert!(!odirect.unwrap().1.help.contains("(-a"));
    }

    #[test]
    fn a_features_backends_options_are_known_to_every_build() {
        let listed: Vec<(&str, ModuleOption)> = all_module_options().collect();
        let chunk = listed.iter().find(|(_, o)| o.name == "hdf5.chunkSize");
        let (owner, chunk) = chunk.expect("HDF5's table in every build");
        assert_eq!(*owner, "HDF5");
        assert!(chunk
            .help
            .ends_with(" (needs a build with --features hdf5)"));
        assert_eq!(module_of("MPIIO.showhints"), Some("MPIIO"));
        let names = documented_backends();
        assert_eq!(names[names.len() - 2..], ["MPIIO", "HDF5"]);
        assert_eq!(
            api_list(|_| true),
            "POSIX|AIO|DUMMY|MMAP|S3|S3-libs3|S3-curl|MPIIO|HDF5 \
             (MPIIO: --features mpi; HDF5: --features hdf5)"
        );
        assert_eq!(
            api_list(|c| c.metadata),
            "POSIX|AIO|DUMMY|S3|S3-libs3|S3-curl"
        );
        let hints = given(&[("mpiio.showHints", "1")]);
        let e = configure("POSIX", &hints).unwrap_err();
        match cfg!(feature = "mpi") {
            true => assert_eq!(e, "--mpiio.showHints applies to -a MPIIO, not -a POSIX"),
            false => assert!(e.contains("rebuild with '--features mpi'"), "{e}"),
        }
    }

    #[test]
    fn options_are_read_into_their_type() {
        use crate::backend::dummy::DummyOptions;
        let two_k = given(&[("DUMMY.delay-xfer", "2k")]);
        let o = options_of::<DummyOptions>("dummy", &two_k);
        assert_eq!(o.unwrap().unwrap().delay_xfer, 2048);
        assert!(options_of::<DummyOptions>("POSIX", &two_k).is_none());
        let x = given(&[("dummy.delay-xfer", "x")]);
        let e = options_of::<DummyOptions>("DUMMY", &x)
            .unwrap()
            .unwrap_err();
        assert!(
            e.starts_with("--dummy.delay-xfer=x: 'x' is not a size"),
            "{e}"
        );
    }

    #[test]
    fn configuration_checks_names_and_values() {
        let mut options = Given::new();
        assert_eq!(configure("posix", &options).unwrap().name(), "POSIX");
        options.insert("posix.odirect".to_string(), "1".to_string());
        assert_eq!(
            configure("POSIX", &options).unwrap().alignment(),
            Some(4096)
        );
        let e = configure("MMAP", &options).unwrap_err();
        assert_eq!(e, "--posix.odirect applies to -a POSIX, not -a MMAP");
        options.insert("posix.odirect".to_string(), "x".to_string());
        let e = configure("POSIX", &options).unwrap_err();
        assert_eq!(e, "-a POSIX: --posix.odirect=x: 'x' is not an integer");
        assert!(configure("NCMPI", &Given::new())
            .unwrap_err()
            .contains("not supported by pario"));
        options.insert("posix.odirect".to_string(), "1".to_string());
        options.insert("aio.max-pending".to_string(), "0".to_string());
        let e = configure("AIO", &options).unwrap_err();
        assert_eq!(e, "-a AIO: --aio.max-pending=0: at least 1");
        options.insert("aio.max-pending".to_string(), "16".to_string());
        assert_eq!(configure("aio", &options).unwrap().alignment(), Some(4096));
        let e = configure("POSIX", &options).unwrap_err();
        assert_eq!(e, "--aio.max-pending applies to -a AIO, not -a POSIX");
        assert!(configure("NOPE", &Given::new())
            .unwrap_err()
            .contains("unknown API (this build has POSIX, AIO, DUMMY, MMAP"));
    }
}
