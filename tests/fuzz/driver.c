/* driver.c: runs a harness over files (a corpus) without libFuzzer, so that
 * make check replays every corpus entry and every crash once found.
 *
 * usage: replay_NAME DIR|FILE...  (make check runs it through
 * tests/fuzz/replay-corpus.sh, which gives it tests/fuzz/corpus/NAME).
 * It fails if given nothing, a directory that holds no input, or a path
 * that cannot be read: a replay of no input must never pass. */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int
one (const char *path)
{
  FILE *f = fopen (path, "rb");
  uint8_t *buf;
  long n;

  if (f == NULL || fseek (f, 0, SEEK_END) < 0 || (n = ftell (f)) < 0) {
    perror (path);
    return 1;
  }
  rewind (f);
  buf = malloc ((size_t) n + 1);
  if (buf == NULL || fread (buf, 1, (size_t) n, f) != (size_t) n) {
    perror (path);
    return 1;
  }
  fclose (f);
  LLVMFuzzerTestOneInput (buf, (size_t) n);
  free (buf);
  return 0;
}

int
main (int argc, char **argv)
{
  int bad = 0, count = 0;

  if (argc < 2) {
    fprintf (stderr, "usage: %s CORPUS-DIR|FILE...\n"
             "(no input given: a replay of nothing does not pass)\n", argv[0]);
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat (argv[i], &st) == 0 && S_ISDIR (st.st_mode)) {
      DIR *d = opendir (argv[i]);
      struct dirent *de;
      int here = 0;
      if (d == NULL) {
        perror (argv[i]);
        bad = 1;
        continue;
      }
      while ((de = readdir (d)) != NULL) {
        char p[4096];
        if (de->d_name[0] == '.')
          continue;
        snprintf (p, sizeof p, "%s/%s", argv[i], de->d_name);
        bad |= one (p);
        here++;
      }
      closedir (d);
      if (here == 0) {
        fprintf (stderr, "%s: no input in this corpus directory\n", argv[i]);
        bad = 1;
      }
      count += here;
    }
    else {
      bad |= one (argv[i]);
      count++;
    }
  }
  printf ("%d inputs\n", count);
  return bad;
}
