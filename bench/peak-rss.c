/*
 * peak-rss: runs a command and writes its peak resident set in KiB to a file of the rank's own.
 *
 *   peak-rss PREFIX COMMAND [ARG...]   ->  PREFIX.RANK holds the peak (RANK from Open MPI's or
 *                                          MPICH's environment, 0 outside mpiexec)
 *
 * The memory scripts (bench/sample-args.sh rank_peaks, tests/e2e/footprint.sh) run each rank
 * under it. Why C and not a python3 wrapper (what they used before): a process's ru_maxrss keeps
 * the high-water mark of the memory it had before exec(), and a child python forks (or vforks)
 * starts with python's 14 MB resident, so every peak below that read as 14 MB. Forked from this
 * program the child starts with well under 1 MB, less than any MPI program holds.
 *
 * The figure is the kernel's high-water mark, and Linux (6.x) updates it lazily from per-CPU
 * resident counters that lag by up to their batch: for an 11 MB MPI rank it read 0.1-0.4 MB
 * below the exact resident size (/proc/PID/status VmRSS) at the moment of the peak, and run to
 * run the same process's figure moves by as much. Read at the main thread's exit under ptrace,
 * VmHWM is no better (it is the same lazily kept mark). Differences under 0.5 MB between two
 * processes of that size are within this noise.
 *
 * Exit status: the command's (128 + the signal if a signal ended it), 127 if it cannot run.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: peak-rss PREFIX COMMAND [ARG...]\n");
    return 2;
  }
  const pid_t child = fork();
  if (child < 0) {
    perror("peak-rss: fork");
    return 127;
  }
  if (child == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(child, &status, 0, &usage) < 0) {
    perror("peak-rss: wait4");
    return 127;
  }
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank)
    rank = getenv("PMI_RANK");
  char path[4096];
  snprintf(path, sizeof path, "%s.%s", argv[1], rank ? rank : "0");
  FILE *f = fopen(path, "w");
  if (!f || fprintf(f, "%ld\n", usage.ru_maxrss) < 0 || fclose(f) != 0) {
    perror(path);
    return 127;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
