/* log.h: the powercut log file: on-disk layout, record encoding, and a reader.
 *
 * A log is one append-only file: a 256-byte file header followed by records.
 * All fields are little-endian and fixed width.  powercut-log(5) is the
 * reference for the layout; this header is the contract of the code.
 *
 * File header (PC_LOG_HEADER_SIZE bytes):
 *     0  magic[8]      "PCUTLOG\0"
 *     8  u32 version   PC_LOG_VERSION
 *    12  u32 hdrsize   PC_LOG_HEADER_SIZE
 *    16  u32 compat    feature bits a reader may ignore (PC_LOG_COMPAT_*)
 *    20  u32 incompat  feature bits a reader must understand (none defined)
 *    24  u64 devsize   device size in bytes
 *    32  u32 sector    logical sector size in bytes (requests are aligned to it)
 *    36  u32 flags     PC_LOG_F_BASE: the device started as a base image
 *    40  u64 start     CLOCK_REALTIME of the start, nanoseconds since the epoch
 *    48  u8[16] basehash  XXH128 of the base image (all zero without one)
 *    64  u64 basesize  size of the base image in bytes
 *    72  char[128]     base image name (no directories, NUL padded)
 *   200  u64 mono      with PC_LOG_COMPAT_CLOCK: CLOCK_MONOTONIC at time 0
 *                      of the records, in nanoseconds
 *   208  u8[16] boot   with PC_LOG_COMPAT_CLOCK: the boot that clock counts
 *                      in (/proc/sys/kernel/random/boot_id): logs of one
 *                      boot are on one clock (several devices, one power cut)
 *   224  zero         reserved
 *   248  u64 csum      XXH3-64 of bytes 0..247
 *
 * Record (PC_REC_HEADER_SIZE bytes, then datalen bytes of payload):
 *     0  u32 magic     "PCRC"
 *     4  u16 type      enum pc_rec_type
 *     6  u16 flags     PC_REC_F_*
 *     8  u64 seq       record number: 0, 1, 2 ... in completion order
 *    16  u64 offset    device byte offset (WRITE, TRIM, WRITE_ZEROES)
 *    24  u32 length    device bytes affected
 *    28  u32 datalen   payload bytes following the header
 *    32  u64 time      nanoseconds since the start of the recording
 *    40  u32 conn      connection number (0: control socket)
 *    44  u32 hdrsum    with PC_LOG_COMPAT_HDRSUM: the low 32 bits of the
 *                      XXH3-64 of bytes 0..43; else zero
 *    48  u64 csum      XXH3-64 over bytes 0..47 and the payload
 *
 * Payloads: WRITE carries its data (datalen == length).  MARK carries an
 * encoded mark (see mark.h), EVENT an encoded event of a traced program
 * (event.h).  TRIM, WRITE_ZEROES, FLUSH, END and DONE carry none.
 *
 * DONE (with PC_LOG_COMPAT_DONE): the FLUSH or FUA write whose record
 * number is its offset was answered, the log durable up to it: until
 * then the disk could still lose what that request made durable, so
 * records between the request and its DONE (a traced program's
 * acknowledgements, say) happened while it could (replay/crash.h, the
 * moments).  A request the recorder answered with an error, or after
 * the END was queued, has none; a log without them is read as if each
 * request were done at its own record.
 *
 * Records a reader does not know: a log whose compat word has a bit the
 * reader does not know may hold record types the reader does not know
 * either; it reads over them (their payload is ancillary, never the
 * disk's), checksums checked, and gives them to its caller as they are.
 * Without such a bit, an unknown type is damage.
 * A recording that was stopped cleanly ends with an END record; one that
 * was cut (recorder killed, machine crash) ends at its last whole record.
 */
#ifndef POWERCUT_LOG_H
#define POWERCUT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_LOG_MAGIC        "PCUTLOG"      /* 8 bytes with the NUL */
#define PC_LOG_VERSION      1
#define PC_LOG_HEADER_SIZE  256
#define PC_REC_MAGIC        0x43524350u    /* "PCRC" as little-endian u32 */
#define PC_REC_HEADER_SIZE  56
#define PC_REC_MAX_DATA     (64u << 20)    /* largest payload a reader accepts */

#define PC_LOG_F_BASE       (1u << 0)

/* Records carry a checksum of their header alone, so that a damaged
 * length is told from a torn end.  Logs are written with it; a reader
 * checks it where the header says so (older logs lack it). */
#define PC_LOG_COMPAT_HDRSUM (1u << 0)
/* The log may hold EVENT records (a traced program's calls), which a
 * reader that does not know them reads over. */
#define PC_LOG_COMPAT_EVENTS (1u << 1)
/* The header gives the records' clock: mono and boot. */
#define PC_LOG_COMPAT_CLOCK  (1u << 2)
/* The log may hold DONE records, which a reader that does not know them
 * reads over. */
#define PC_LOG_COMPAT_DONE   (1u << 3)
#define PC_LOG_COMPAT_KNOWN  (PC_LOG_COMPAT_HDRSUM | PC_LOG_COMPAT_EVENTS | PC_LOG_COMPAT_CLOCK | \
                              PC_LOG_COMPAT_DONE)

enum pc_rec_type {
  PC_REC_WRITE = 1,
  PC_REC_TRIM = 2,
  PC_REC_WRITE_ZEROES = 3,
  PC_REC_FLUSH = 4,
  PC_REC_MARK = 5,
  PC_REC_END = 6,
  PC_REC_EVENT = 7,         /* what a traced program did: nothing on the disk */
  PC_REC_DONE = 8,          /* a FLUSH or FUA write answered: nothing on the disk */
};
#define PC_REC_LAST PC_REC_DONE     /* the last type this reader knows */

#define PC_REC_F_FUA        (1u << 0)   /* the client asked for forced unit access */
#define PC_REC_F_NO_HOLE    (1u << 1)   /* WRITE_ZEROES: the client asked not to trim */

struct pc_log_header {
  uint32_t version;
  uint32_t compat;
  uint32_t incompat;
  uint64_t devsize;
  uint32_t sector;
  uint32_t flags;
  uint64_t start_ns;
  uint8_t basehash[16];
  uint64_t basesize;
  char basename[128];
  uint64_t start_mono;          /* with PC_LOG_COMPAT_CLOCK */
  uint8_t boot_id[16];
};

struct pc_record {
  enum pc_rec_type type;
  uint16_t flags;
  uint64_t seq;
  uint64_t offset;
  uint32_t length;
  uint32_t datalen;
  uint64_t time_ns;
  uint32_t conn;
  const uint8_t *data;     /* payload, datalen bytes (valid while the reader is open) */
  uint64_t file_offset;    /* where the record starts in the log file */
};

/* Name of a record type ("write", "trim", ...), or "unknown". */
const char *pc_rec_type_name (unsigned type);

/* Does a record of this type tell what the disk held (a write, trim,
 * write-zeroes, flush), or a moment of the recording (a mark, the end)?
 * Events and types this reader does not know do not. */
bool pc_rec_is_disk (const struct pc_record *r);

/* Encodes the file header into buf (PC_LOG_HEADER_SIZE bytes). */
void pc_log_header_encode (const struct pc_log_header *h, uint8_t *buf);

/* Decodes and verifies a file header.  Returns 0, -EBADMSG (bad magic or
 * checksum), or -EPROTONOSUPPORT (a newer version or unknown incompat bits). */
int pc_log_header_decode (const uint8_t *buf, size_t len, struct pc_log_header *ret_h);

/* Encodes a record header into buf (PC_REC_HEADER_SIZE bytes) with its
 * header checksum and its checksum over the header and the datalen bytes
 * at data. */
void pc_rec_encode (const struct pc_record *r, const void *data, uint8_t *buf);

/* Why a log ended. */
enum pc_log_end {
  PC_END_CLEAN,      /* an END record: the recording was stopped cleanly */
  PC_END_CUT,        /* no END record, the file ends on a record boundary */
  PC_END_TORN,       /* the file ends inside a record (a partial write) */
  PC_END_CORRUPT,    /* a whole record fails its checksum or is malformed */
};

/* The words for an error of pc_log_open() ("not a powercut log (bad
 * header)", ...), for messages "FILE: WORDS". */
const char *pc_log_strerror (int r);

/* A reader over a whole log file, mapped read-only. */
struct pc_log;

/* Opens a log and checks its header.  Returns 0 or -errno (-EBADMSG: not a
 * powercut log; -ENODATA: one cut inside its header; -EPROTONOSUPPORT:
 * written by a newer version). */
int pc_log_open (const char *path, struct pc_log **ret_log);
void pc_log_close (struct pc_log *log);

const struct pc_log_header *pc_log_get_header (const struct pc_log *log);
uint64_t pc_log_file_size (const struct pc_log *log);

/* Iteration: returns 1 and fills *ret_rec with the record at the cursor and
 * advances; returns 0 at the end of the valid records (pc_log_end_state()
 * then says why).  Seeking: pc_log_rewind() goes back to the first record. */
int pc_log_next (struct pc_log *log, struct pc_record *ret_rec);
void pc_log_rewind (struct pc_log *log);

/* After pc_log_next() returned 0: how the log ended, and for TORN/CORRUPT
 * the record number and file offset of the bad record and a short reason
 * ("bad checksum", "bad magic", "partial record", ...). */
enum pc_log_end pc_log_end_state (const struct pc_log *log, uint64_t *ret_seq,
                                  uint64_t *ret_offset, const char **ret_reason);

/* For a CORRUPT end: "record N at offset X: REASON" into buf; returns buf. */
char *pc_log_corrupt_message (const struct pc_log *log, char *buf, size_t len);

#endif
