/*
 * A reference for IOR 4's HDF5 backend (`ior -a HDF5`), written for pario's
 * tests from the description in pario's notes on IOR's HDF5 backend (file
 * layout checked with h5dump on files of a real IOR 4.1) and with IOR's data
 * patterns from ior_pattern.h. It makes the HDF5 calls IOR makes, in IOR's
 * order, for the sequential transfers of `-w` (write) or `-r -R` (read and
 * check), so a file written here is a file IOR would write, and a file read
 * here is checked word by word as IOR's -R checks it.
 *
 *   mpirun -n N ior_hdf5 -w|-r -o FILE -t T -b B -s S -G SIG -l t|o|i|r
 *                        [-F] [-c] [-A ALIGN] [-K CHUNK] [-N]
 *   ior_hdf5 -d -o FILE [FILE...]   describe the files' layouts (rank 0)
 *
 * Options as IOR's: -F a file per rank (FILE.00000000...), -c collective
 * transfers; -A is --hdf5.setAlignment, -K --hdf5.chunkSize (elements), -N
 * --hdf5.noFill. Sizes take k, m, g. -r exits 1 when a word is wrong (rank
 * 0 prints the count) or the file's datasets are not IOR's; HDF5 failures
 * abort with 2.
 *
 * Build: h5pcc -O2 -fwrapv -fno-strict-aliasing.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

#include "ior_pattern.h"

struct test {
        char mode;              /* 'w', 'r' or 'd' */
        const char *name;
        uint64_t transfer, block, segments;
        int signature;
        enum packet packet;
        int file_per_proc, collective, no_fill;
        uint64_t alignment, chunk;
        int rank, tasks;
};

/* An HDF5 or MPI failure: this is a test tool, so all ranks stop. */
static void fail(const char *what)
{
        fprintf(stderr, "ior_hdf5: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
}

#define CHECK(call, what) do { if ((call) < 0) fail(what); } while (0)

static uint64_t size_of(const char *text)
{
        char *end = NULL;
        uint64_t n = strtoull(text, &end, 10);
        switch (*end) {
        case 'k': case 'K': return n << 10;
        case 'm': case 'M': return n << 20;
        case 'g': case 'G': return n << 30;
        }
        return n;
}

static void parse(int argc, char **argv, struct test *t)
{
        memset(t, 0, sizeof *t);
        t->transfer = t->block = 262144;
        t->segments = 1;
        t->packet = TIMESTAMP;
        t->alignment = 1;
        int c;
        while ((c = getopt(argc, argv, "wrdo:t:b:s:G:l:FcA:K:N")) != -1) {
                switch (c) {
                case 'w': case 'r': case 'd': t->mode = (char) c; break;
                case 'o': t->name = optarg; break;
                case 't': t->transfer = size_of(optarg); break;
                case 'b': t->block = size_of(optarg); break;
                case 's': t->segments = size_of(optarg); break;
                /* -G: a 64-bit number stored into an int, as IOR does */
                case 'G': t->signature = (int) strtoll(optarg, NULL, 10); break;
                case 'l': t->packet = packet_of(optarg[0]); break;
                case 'F': t->file_per_proc = 1; break;
                case 'c': t->collective = 1; break;
                case 'A': t->alignment = size_of(optarg); break;
                case 'K': t->chunk = size_of(optarg); break;
                case 'N': t->no_fill = 1; break;
                default: fail("parsing the options");
                }
        }
        if (!t->mode || !t->name || t->transfer < 8 || t->transfer % 8
            || t->block % t->transfer)
                fail("parsing the options (see the comment at the top)");
}

/* Bytes per segment, so per dataset: every task's block of a shared file. */
static uint64_t segment_size(const struct test *t)
{
        return t->file_per_proc ? t->block : (uint64_t) t->tasks * t->block;
}

/* IOR's logical offset of transfer j of segment s (as for POSIX). */
static uint64_t offset_of(const struct test *t, uint64_t s, uint64_t j)
{
        if (t->file_per_proc)
                return s * t->block + j * t->transfer;
        return s * segment_size(t) + (uint64_t) t->rank * t->block + j * t->transfer;
}

/* IOR's open: sizes 8/8, the MPI-IO driver on the test's communicator (or
 * MPI_COMM_SELF with -F), H5Pset_alignment(A, A); create truncating for a
 * write, open read-only otherwise. */
static hid_t open_file(const struct test *t, const char *name)
{
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        CHECK(fcpl, "H5Pcreate(file create)");
        CHECK(H5Pset_sizes(fcpl, sizeof(hsize_t), sizeof(hsize_t)), "H5Pset_sizes");
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        CHECK(fapl, "H5Pcreate(file access)");
        MPI_Comm comm = t->file_per_proc ? MPI_COMM_SELF : MPI_COMM_WORLD;
        CHECK(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
        CHECK(H5Pset_alignment(fapl, t->alignment, t->alignment), "H5Pset_alignment");
        hid_t file = t->mode == 'w'
                ? H5Fcreate(name, H5F_ACC_TRUNC, fcpl, fapl)
                : H5Fopen(name, H5F_ACC_RDONLY, fapl);
        CHECK(file, t->mode == 'w' ? "H5Fcreate" : "H5Fopen");
        H5Pclose(fcpl);
        H5Pclose(fapl);
        return file;
}

/* 1 when `dataset` is not IOR's: 1-D, fixed, segment/8 signed 64-bit
 * integers. */
static int wrong_shape(const struct test *t, hid_t dataset, const char *name)
{
        hid_t type = H5Dget_type(dataset), space = H5Dget_space(dataset);
        CHECK(type, "H5Dget_type");
        CHECK(space, "H5Dget_space");
        hsize_t dims = 0, max = 0;
        int wrong = H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) != 8
                || H5Tget_sign(type) != H5T_SGN_2
                || H5Sget_simple_extent_ndims(space) != 1;
        if (!wrong) {
                H5Sget_simple_extent_dims(space, &dims, &max);
                wrong = dims != segment_size(t) / 8 || max != dims;
        }
        if (wrong)
                fprintf(stderr, "ior_hdf5: rank %d: %s is not a dataset of %" PRIu64
                        " signed 64-bit integers\n", t->rank, name, segment_size(t) / 8);
        H5Tclose(type);
        H5Sclose(space);
        return wrong;
}

/* IOR's next dataset, Dataset-0000.<k> with k counted per opened file:
 * created with the module's chunk and fill settings, or opened. */
static hid_t next_dataset(const struct test *t, hid_t file, int k, size_t *errors)
{
        char name[64];
        snprintf(name, sizeof name, "Dataset-%04d.%04d", 0, k);
        if (t->mode != 'w') {
                hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
                CHECK(dataset, "H5Dopen");
                *errors += wrong_shape(t, dataset, name);
                return dataset;
        }
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        CHECK(dcpl, "H5Pcreate(dataset create)");
        if (t->chunk > 0) {
                hsize_t chunk = t->chunk;
                CHECK(H5Pset_chunk(dcpl, 1, &chunk), "H5Pset_chunk");
        }
        if (t->no_fill)
                CHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
        hsize_t dims = segment_size(t) / 8;
        hid_t space = H5Screate_simple(1, &dims, NULL);
        CHECK(space, "H5Screate_simple");
        hid_t dataset = H5Dcreate2(file, name, H5T_NATIVE_LLONG, space,
                                   H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(dataset, "H5Dcreate");
        H5Sclose(space);
        H5Pclose(dcpl);
        return dataset;
}

/* The number of links in the root group (IOR's files hold only datasets). */
static hsize_t objects_in(hid_t file)
{
        H5G_info_t info;
        CHECK(H5Gget_info(file, &info), "H5Gget_info");
        return info.nlinks;
}

/* Every transfer of this rank, in IOR's order: returns the wrong words. */
static size_t run(const struct test *t, const char *name, uint64_t *transfers)
{
        hid_t file = open_file(t, name);
        size_t errors = 0;
        if (t->mode == 'r' && objects_in(file) != t->segments) {
                fprintf(stderr, "ior_hdf5: %s holds %llu objects, not %" PRIu64 " datasets\n",
                        name, (unsigned long long) objects_in(file), t->segments);
                errors++;
        }
        hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
        CHECK(xfer, "H5Pcreate(transfer)");
        CHECK(H5Pset_dxpl_mpio(xfer, t->collective ? H5FD_MPIO_COLLECTIVE
                               : H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio");
        /* As IOR's: declared `transfer` elements long, the first
         * transfer/8 of them selected. */
        const hsize_t elements = t->transfer / 8, zero = 0, one = 1;
        hsize_t declared = t->transfer;
        hid_t memory = H5Screate_simple(1, &declared, NULL);
        CHECK(memory, "H5Screate_simple(memory)");
        CHECK(H5Sselect_hyperslab(memory, H5S_SELECT_SET, &zero, &elements, &one,
                                  &elements), "H5Sselect_hyperslab(memory)");
        char *buf = NULL;
        if (posix_memalign((void **) &buf, 4096, t->transfer) != 0)
                fail("posix_memalign");
        generate(buf, t->transfer, t->signature, t->rank, t->packet);
        const uint64_t segment = segment_size(t);
        const uint64_t own_start = t->file_per_proc ? 0 : (uint64_t) t->rank * t->block;
        hid_t dataset = -1;
        int next = 0;
        for (uint64_t s = 0; s < t->segments; s++) {
                for (uint64_t j = 0; j < t->block / t->transfer; j++) {
                        uint64_t offset = offset_of(t, s, j);
                        if ((offset - own_start) % segment == 0) {
                                if (dataset >= 0)
                                        CHECK(H5Dclose(dataset), "H5Dclose");
                                dataset = next_dataset(t, file, next++, &errors);
                        }
                        hid_t space = H5Dget_space(dataset);
                        CHECK(space, "H5Dget_space");
                        hsize_t start = (offset % segment) / 8;
                        CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, &elements,
                                                  &one, &elements), "H5Sselect_hyperslab");
                        if (t->mode == 'w') {
                                update(offset, buf, t->transfer, t->signature, t->rank, t->packet);
                                CHECK(H5Dwrite(dataset, H5T_NATIVE_LLONG, memory, space, xfer,
                                               buf), "H5Dwrite");
                        } else {
                                memset(buf, 0xee, t->transfer);
                                CHECK(H5Dread(dataset, H5T_NATIVE_LLONG, memory, space, xfer,
                                              buf), "H5Dread");
                                errors += verify(offset, buf, t->transfer, t->signature,
                                                 t->rank, t->packet);
                        }
                        H5Sclose(space);
                        ++*transfers;
                }
        }
        if (dataset >= 0)
                CHECK(H5Dclose(dataset), "H5Dclose");
        free(buf);
        H5Sclose(memory);
        H5Pclose(xfer);
        CHECK(H5Fclose(file), "H5Fclose");
        return errors;
}

static const char *layout_name(H5D_layout_t layout)
{
        switch (layout) {
        case H5D_CONTIGUOUS: return "contiguous";
        case H5D_CHUNKED: return "chunked";
        case H5D_COMPACT: return "compact";
        default: return "other";
        }
}

/* One line per dataset (in name order) after one for the file: what
 * h5dump -H -p shows of IOR's files, for comparing two files' layouts. */
static herr_t describe_dataset(hid_t group, const char *name, const H5L_info_t *info, void *unused)
{
        (void) info;
        (void) unused;
        hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
        CHECK(d, "H5Dopen");
        hid_t type = H5Dget_type(d), space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
        hsize_t dims = 0, max = 0, chunk = 0;
        H5Sget_simple_extent_dims(space, &dims, &max);
        H5D_layout_t layout = H5Pget_layout(dcpl);
        if (layout == H5D_CHUNKED)
                H5Pget_chunk(dcpl, 1, &chunk);
        H5D_fill_time_t fill_time;
        H5D_alloc_time_t alloc_time;
        H5D_fill_value_t fill;
        H5Pget_fill_time(dcpl, &fill_time);
        H5Pget_alloc_time(dcpl, &alloc_time);
        H5Pfill_value_defined(dcpl, &fill);
        haddr_t offset = H5Dget_offset(d);
        static const char *fill_times[] = { "alloc", "never", "ifset" };
        static const char *alloc_times[] = { "default", "early", "late", "incr" };
        static const char *fill_values[] = { "undefined", "default", "user" };
        printf("dataset %s type %s%zu %s dims %llu/%llu %s chunk %llu offset %lld storage %llu"
               " filters %d fill_time %s alloc_time %s fill_value %s\n",
               name, H5Tget_sign(type) == H5T_SGN_2 ? "i" : "u", H5Tget_size(type) * 8,
               H5Tget_order(type) == H5T_ORDER_LE ? "le" : "be",
               (unsigned long long) dims, (unsigned long long) max, layout_name(layout),
               (unsigned long long) chunk,
               offset == HADDR_UNDEF ? -1LL : (long long) offset,
               (unsigned long long) H5Dget_storage_size(d), H5Pget_nfilters(dcpl),
               fill_time >= 0 && fill_time <= 2 ? fill_times[fill_time] : "?",
               alloc_time >= 0 && alloc_time <= 3 ? alloc_times[alloc_time] : "?",
               fill >= 0 && fill <= 2 ? fill_values[fill] : "?");
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Tclose(type);
        H5Dclose(d);
        return 0;
}

static void describe(const char *name)
{
        struct stat st;
        if (stat(name, &st) != 0)
                fail("stat");
        hid_t file = H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT);
        CHECK(file, "H5Fopen");
        H5F_info2_t info;
        CHECK(H5Fget_info2(file, &info), "H5Fget_info2");
        hid_t fcpl = H5Fget_create_plist(file);
        size_t addr = 0, size = 0;
        H5Pget_sizes(fcpl, &addr, &size);
        printf("file %s size %lld superblock %u sizes %zu/%zu objects %llu\n",
               name, (long long) st.st_size, info.super.version, addr, size,
               (unsigned long long) objects_in(file));
        CHECK(H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, NULL, describe_dataset, NULL),
              "H5Literate");
        H5Pclose(fcpl);
        H5Fclose(file);
}

int main(int argc, char **argv)
{
        MPI_Init(&argc, &argv);
        struct test t;
        MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
        int rank = t.rank, tasks;
        MPI_Comm_size(MPI_COMM_WORLD, &tasks);
        parse(argc, argv, &t);
        t.rank = rank;
        t.tasks = tasks;
        if (t.mode == 'd') {
                if (t.rank == 0) {
                        describe(t.name);
                        for (int i = optind; i < argc; i++)
                                describe(argv[i]);
                }
                MPI_Finalize();
                return 0;
        }
        char name[4096];
        if (t.file_per_proc)
                snprintf(name, sizeof name, "%s.%08d", t.name, t.rank);
        else
                snprintf(name, sizeof name, "%s", t.name);
        uint64_t transfers = 0, all_transfers = 0;
        unsigned long long errors = run(&t, name, &transfers), all_errors = 0;
        MPI_Allreduce(&errors, &all_errors, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&transfers, &all_transfers, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (t.rank == 0)
                printf("ior_hdf5: %s %" PRIu64 " transfers, %llu errors\n",
                       t.mode == 'w' ? "wrote" : "checked", all_transfers, all_errors);
        MPI_Finalize();
        return all_errors ? 1 : 0;
}
