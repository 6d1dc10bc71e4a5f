"""End-to-end benchmarks of pario: against fio, against a C system-call loop,
against itself (MPI, latency recording, read verification) and build against
build.

Run from the repository root:

  python3 -m scripts.bench [WORKLOAD ...] [options]
  scripts/bench/__main__.py [WORKLOAD ...] [options]      (the same)
  python3 -m unittest discover scripts/bench              (the statistics' tests)

Workloads (names separated by spaces or commas; default: bw iops dummy mem;
`all`: every one but build and instructions):

  bw       ior -t 1m -b 256m -s 4 -F -e   vs  fio --bs=1m --size=1g, one job
           per task, --ioengine=psync (--fsync_on_close=1 for writes, as -e),
           in three modes (--modes):
             write/fresh      the files do not exist before the timed write:
                              ior's default (it removes old files first, and
                              its files after the run); fio --fallocate=none,
                              files deleted after every fio round
             write/overwrite  the files exist, fully written: ior -E -k; fio
                              on files at full size (so it lays nothing out)
             read             read of existing, fully written files:
                              ior -r -k; fio --rw=read
           Both tools use the same files (fio gets ior's names, one job per
           file), so they touch the same memory; --separate-files gives fio
           its own files (--directory, --numjobs) instead.
  iops     ior -t 4k -b 64m -F            vs  fio --bs=4k --size=64m, same modes
  dummy    ior -a DUMMY -t 8 -b 64m -w with 1 and with --tasks tasks: transfers
           per second per task (no fio counterpart); target >= 30M
  mem      peak RSS (/usr/bin/time -v) of ior -t 1m|16m -b 64m -w -r with 1, 2
           and 4 tasks; targets: 1 task <= 8 MiB + one transfer buffer, each
           extra task (medians) <= one transfer buffer
  syscalls strace -f -y of one 1m and one 4k write and read per tool: the
           pwrite64/pread64 calls on the test files (one per transfer
           expected), all calls on the files, all calls
  mpi      mpirun -n TASKS ior (MPI build, --mpi-ior) against PARIO_TASKS=TASKS
           ior: -t 1m -b 256m -s 4 -F -e (MiB/s) and -t 4k -b 64m -F (IOPS),
           write and read; target MPI/local >= 0.95
  mpiio    mpirun -n TASKS ior -a MPIIO -t 1m -b 256m -F against -a POSIX (MPI
           build): write and read MiB/s, target MPIIO/POSIX >= 0.95
  hdf5     mpirun -n TASKS ior -a HDF5 -t 1m -b 256m (one shared file)
           against -a MPIIO, independent and with -c, both from the HDF5 build
           (--hdf5-ior, --features hdf5): write and read MiB/s, target
           HDF5/MPIIO >= 0.9
  fixedcost  wall time of mpirun -n TASKS ior -a DUMMY -t 1m -b 1m against
           mpirun -n TASKS true (and a C program that only starts and stops
           MPI, when mpicc is there), --fixedcost-runs runs each, rotating;
           target ior - true <= 0.2 s; with Open MPI (OMPI_MCA_pml unset) the
           same again with OMPI_MCA_pml=ob1
  latency  recording on (the default) against -O recordLatency=0:
           PARIO_TASKS=TASKS ior -t 4k -b 64m -F write and read IOPS (target
           on/off >= 0.98), ior -a DUMMY -t 8 -b 256m -w transfers/s per task
           with 1 and TASKS tasks (target >= 0.8)
  residency  the residency example (target/release/examples/residency, next
           to --ior) on a 10 GiB file written by dd bs=4M count=2560,
           max(3, rounds) runs; target < 0.1 s; the file is always removed
  integrity  -r -R against -r (read verification), -l --packet, TASKS tasks:
           -t 1m -b 256m -s 4 -F and -t 47008 -b 47008 -s 20000 -F, files
           written once with -w -k -G 42; each round runs -r then -r -R of
           each build (--ior, then every --also); target -r -R >= 0.9 x -r
  mdtest   mdtest -n --items -F -i --iterations against a C loop (mdloop.c,
           compiled with gcc) making the same system calls in the same
           layout, 1 and TASKS tasks (--mdtest-tasks); target: the median
           paired ratio pario/loop >= 0.95 for every phase
  aio      -a AIO (io_uring) against fio's io_uring engine and POSIX: 4k
           random O_DIRECT reads at depth 32 on --aio-dir (targets 0.95 x fio,
           1.8 x POSIX), and 4k writes at depth 1 on /dev/shm (0.95 x POSIX)
  find     io500's find (examples/find.rs) against a minimal parallel walk
           (findloop.c) on a tree of --find-files files made by mdtest, 1 and
           TASKS tasks; target: paired pario/loop >= 0.95 in entries/s
  io500    a scaled-down io500 run: the time outside its phases (target
           < 1 s), and its two first write phases' figures against their
           exe lines run alone with ior and mdtest
  mdworkbench  md-workbench -D 10 -I 1000 -P 1000 -R 3 (--mdw-data-sets,
           --mdw-objects, --mdw-precreate, --mdw-iterations) against a C loop
           (mdwloop.c, compiled with gcc) making the same system calls in the
           same order on the same names, and pario with its per-operation
           timing off (--recordLatency=0; left out when the binary refuses
           it), 1 and TASKS tasks (--mdw-tasks); figure: the median of each
           run's benchmark phases' rates; target: the median paired ratio
           pario/loop >= 0.95, timing on and off
  stops    how long a run takes to stop after SIGINT (or one MPI rank
           killed), --stop-after seconds in; target within 5 s, nothing left
  report   pario report on real ior results (1,000 repetitions; fifty
           results): time and size of the HTML (targets 1 s, 5 and 10 MB)
  sweep    PARIO_TASKS=TASKS ior -a DUMMY -t 8 -b 256m -w -O sweep=N (a
           step on a split communicator) against a plain run on N tasks:
           transfers/s per task, N = TASKS and 1; target paired >= 0.98
  rwmix    ior -a DUMMY -t 8 -b 256m -w -O rwmixRead=50 against a plain
           DUMMY write, 1 and TASKS tasks: transfers/s per task; target 0.9
           (paired); for information, -t 64k, -t 1m and a transferSizeSplit
  concurrent  PARIO_TASKS=TASKS pario concurrent --json J FILE, FILE one
           group `100% TOOL ARGS`, against PARIO_TASKS=TASKS TOOL ARGS: ior
           -t 1m -b 256m -F -e (MiB/s) and -t 4k -b 64m -F (IOPS), write and
           read; ior -a DUMMY -t 8 -b 64m -w (transfers/s per task); mdtest
           -n --items -F (the four file phases' rates); the group's figures
           from its own report in J; target: every paired ratio >= 0.98
  s3       ior -a S3 --s3.layout=fragments -w -r (a PUT then a GET per
           object) against a minimal client making the same requests
           (examples/s3loop.rs: pario's ureq + SigV4 request code alone), on
           SeaweedFS started here (weed mini, loopback, telemetry off), one
           task, 4 KiB and 1 MiB objects at depth 1 and 16; targets: paired
           pario/client >= 0.95, depth 16 >= 4 x depth 1 for 4 KiB objects;
           CPU time per request
  dlio     dlio_benchmark's writes against ior writing the same bytes in
           the same number of files, TASKS ranks as threads, wall clock of
           each whole command: workload=unet3d_datagen (16 npz files of
           64 MiB) against ior -w -F -t 4m -b 64m -m -k -i 16/TASKS, target
           0.8; a llama3_8b shrunk to ~1 GiB (ZeRO 3: two files a rank, one
           checkpoint, fsync) against ior -w -F -e -m -k of the mean file
           size, target 0.95; on --dir (run it with /dev/shm and a disk)
  dlio-train  the client's cost of a training run, pario's dlio_benchmark
           against DLIO's (DLIO_VENV, default /work/scratch/dlio-venv/venv;
           pario alone without it), 1 rank, unet3d, resnet50 and cosmoflow
           h100 shapes at real sample sizes, few files: CPU per step from
           two run lengths (start-up cancels), accelerators a core (compute
           time over CPU per step), peak RSS, AU; targets: >= 5x DLIO's
           accelerators a core (resnet50, cosmoflow), >= 1x (unet3d)
  dlio-ref pario's checkpoint against DLIO's own (its mlperf_storage_v2.0
           branch from DLIO_SRC, default /work/ref/dlio-m, run by DLIO_VENV's
           python under mpirun -n TASKS; skipped without them): llama3_8b
           shrunk to ~2.9 GiB (16 layers; DLIO_REF_LAYERS), one checkpoint
           written and read on --dir, the same files checked; pario as DLIO
           (no fsync, rank 0's time) and pario's defaults (fsync, slowest
           rank) against DLIO: each tool's reported GB/s and the size over
           the save's span across ranks; target: pario as DLIO >= DLIO's save
  build    this build (--ior, --mdtest) against a previous one (--baseline
           DIR holding its ior and mdtest), the same commands in the same
           rounds: ior -t 1m -b 256m -s 4 -F -e and -t 4k -b 64m -F with TASKS
           tasks (write and read MiB/s and IOPS), ior -a DUMMY -t 8 -b 64m -w
           with 1 and TASKS tasks (transfers/s per task), mdtest -n --items -F
           with 1 and TASKS tasks (create, stat, read, remove rates); target:
           every median paired ratio new/old >= 0.98
  instructions  the same workloads, smaller, at two lengths per side under
           valgrind's callgrind with latency recording off: user-space
           instructions per transfer or item from the difference of the two
           (start-up cancels out), which do not vary from run to run as times
           do on a shared VM; target: new/old <= 1.02

Every measurement: --warmup untimed rounds of each side, then --rounds rounds
in which the sides alternate (the first goes first in even rounds, the second
in odd ones; with more than two sides, each goes first in turn; integrity
runs its sides in a fixed order, as it always did). Defaults: 5 rounds and 1
warm-up; integrity 9 and 1, mdtest 7 and 0, mdworkbench 7 and 1, build 15
and 1; --quick: 3 rounds (and -s 1 for bw, mpi and build). Tables give each
side's median [min-max], the ratio (or difference) of the medians, and the
per-round ratios: their median with a distribution-free 95 % confidence
interval, and their range. pario's figures come from its JSON output
(-O summaryFormat=JSON, --summaryFormat=JSON); timed runs of bw and iops also
save -O saveRankPerformanceDetailsCSV, to recompute pario's figure the way fio
computes its own. The last column is the share of the CPUs other processes
used (and the hypervisor stole) meanwhile: on a shared machine, see
--wait-idle, --nice and --fio-option=--thread.

Unless --no-build, the chosen workloads' binaries are built first: cargo build
--release --bins; with mpi, mpiio or fixedcost also --features mpi
--target-dir target-mpi; with hdf5, --features hdf5 --target-dir
target-hdf5; with residency, --example residency. The binaries are
target/release/ior and, next to it, mdtest and md-workbench (--ior, --mdtest,
--md-workbench; or CARGO_TARGET_DIR for another target directory).

Exit status: 0 when every measurement ran, 1 on a failure, 130 when
interrupted; with --check, 2 when a figure misses its target. Everything is
written under a fresh directory inside --dir (default /dev/shm), removed on
exit, also on failure or interruption.

Examples:
  python3 -m scripts.bench                      # build, then the defaults
  python3 -m scripts.bench bw iops --no-build --rounds 15 --json out.json
  python3 -m scripts.bench mpi mpiio fixedcost latency --rounds 15
  python3 -m scripts.bench mdtest --rounds 101 --iterations 1
  python3 -m scripts.bench build --baseline /tmp/old/target/release --rounds 31
"""
