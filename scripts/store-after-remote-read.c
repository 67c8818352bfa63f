/*
 * What a write's data costs when another CPU read the buffer last: the `uring` engine's case
 * on a blocking target (zram), whose kernel workers read every buffer, often on the other CPU.
 *
 *   gcc -O2 -march=native -pthread scripts/store-after-remote-read.c -o /tmp/store-after
 *   /tmp/store-after MODE [ROUNDS]      # MODE: unread, read, read-nt, read-prefetch
 *
 * Thread A (CPU 0) fills 32 buffers of 4 KiB in turn with two AES rounds of a counter per
 * 16 bytes (the default data's instructions, VAES on AVX-512) and hands each to thread B
 * (CPU 1), which sums its words (`read`, as zram's compressor reads a page) or only hands it
 * back (`unread`); A refills a buffer when B is done with it, as the engine refills a slot at
 * its completion. Prints the TSC ticks per 4 KiB fill (A's time only, its prefetches
 * included). `read-nt` makes the same bytes with non-temporal stores; `read-prefetch`
 * prefetches the next buffer's lines before each fill. Needs a CPU with AVX-512F and VAES, and 2 CPUs.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define SLOTS 32
#define BS 4096

enum mode { UNREAD, READ, READ_NT, READ_PREFETCH };
static enum mode mode;
static uint8_t *bufs;
static _Atomic long posted[SLOTS], done[SLOTS];
static _Atomic int stop;

__attribute__((target("avx512f,vaes"))) static void fill(uint8_t *b, uint64_t stamp, int nt) {
  __m512i r0 = _mm512_set1_epi64(0x1234567887654321ull);
  __m512i r1 = _mm512_set1_epi64(0x0fedcba987654321ull);
  __m512i c = _mm512_set_epi64(stamp, 3, stamp, 2, stamp, 1, stamp, 0);
  __m512i four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
  for (int v = 0; v < BS / 64; v++) {
    __m512i x = _mm512_aesenc_epi128(_mm512_aesenc_epi128(c, r0), r1);
    if (nt)
      _mm512_stream_si512((void *)(b + 64 * v), x);
    else
      _mm512_store_si512((void *)(b + 64 * v), x);
    c = _mm512_add_epi64(c, four);
  }
  if (nt)
    _mm_sfence();
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *reader(void *unused) {
  long seen[SLOTS] = {0};
  volatile uint64_t sink = 0;
  (void)unused;
  pin(1);
  while (!stop)
    for (int i = 0; i < SLOTS; i++) {
      long p = atomic_load_explicit(&posted[i], memory_order_acquire);
      if (p == seen[i])
        continue;
      if (mode != UNREAD) {
        const uint64_t *w = (const uint64_t *)(bufs + i * BS);
        uint64_t s = 0;
        for (int k = 0; k < BS / 8; k++)
          s += w[k];
        sink += s;
      }
      seen[i] = p;
      atomic_store_explicit(&done[i], p, memory_order_release);
    }
  return NULL;
}

int main(int argc, char **argv) {
  static const char *names[] = {"unread", "read", "read-nt", "read-prefetch"};
  long rounds = argc > 2 ? atol(argv[2]) : 10000;
  mode = 99;
  for (int m = 0; argc > 1 && m < 4; m++)
    if (!strcmp(argv[1], names[m]))
      mode = m;
  if (mode == 99) {
    fprintf(stderr, "usage: %s unread|read|read-nt|read-prefetch [ROUNDS]\n", argv[0]);
    return 2;
  }
  bufs = aligned_alloc(4096, SLOTS * BS);
  memset(bufs, 0, SLOTS * BS);
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  pin(0);
  uint64_t ticks = 0;
  for (long r = 1; r <= rounds; r++)
    for (int i = 0; i < SLOTS; i++) {
      while (atomic_load_explicit(&done[i], memory_order_acquire) != r - 1)
        _mm_pause();
      uint8_t *b = bufs + i * BS;
      uint64_t t0 = __rdtsc();
      if (mode == READ_PREFETCH)
        for (int k = 0; k < BS; k += 64)
          _mm_prefetch((const char *)bufs + ((i + 1) % SLOTS) * BS + k, _MM_HINT_T0);
      fill(b, r * SLOTS + i, mode == READ_NT);
      ticks += __rdtsc() - t0;
      atomic_store_explicit(&posted[i], r, memory_order_release);
    }
  stop = 1;
  pthread_join(t, NULL);
  printf("%-14s %6.0f TSC ticks per 4 KiB fill\n", names[mode], (double)ticks / (rounds * SLOTS));
  return 0;
}
