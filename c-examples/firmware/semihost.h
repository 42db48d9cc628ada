/*
 * Minimal ARM semihosting for the QEMU mps2-an386 firmware harness.
 *
 * Output goes to QEMU's semihosting console (the terminal QEMU runs in when
 * started with -semihosting-config enable=on,target=native and -nographic).
 * No newlib stdio, no heap, no syscalls.
 *
 * semihost_printf supports: %d %i %u %x %X %c %s %% and %f %e %g, with the
 * flags '-' '0' '+' ' ', a field width and a precision (numbers or '*'), and
 * the length modifiers l, ll (64-bit) and z. Floats go through varargs as
 * double, so with -Wdouble-promotion pass them as (double)x.
 */
#ifndef KPCA_FW_SEMIHOST_H
#define KPCA_FW_SEMIHOST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Semihosting operation numbers used here. */
#define SEMIHOST_SYS_WRITEC          0x03
#define SEMIHOST_SYS_WRITE0          0x04
#define SEMIHOST_SYS_EXIT            0x18
#define SEMIHOST_SYS_EXIT_EXTENDED   0x20
#define SEMIHOST_ADP_STOPPED_APPLICATION_EXIT 0x20026

/* Raw semihosting trap: op and arg in r0, r1 (Arm, BKPT 0xAB) or a0, a1
 * (RISC-V, the EBREAK sequence); returns the result register. */
int32_t semihost_call(int32_t op, const void *arg);

/* Write a NUL-terminated string (SYS_WRITE0). No newline is added. */
void semihost_write(const char *s);

/* Write a string followed by '\n'. */
void semihost_puts(const char *s);

/* printf-style output, buffered and flushed at '\n' and at the end of each call.
 * Returns the number of characters produced. */
int semihost_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
int semihost_vprintf(const char *fmt, va_list ap);

/* snprintf-style formatting into a buffer (always NUL-terminated if size > 0).
 * Returns the length the full output would have had. */
int semihost_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* End the QEMU run with this exit status (SYS_EXIT_EXTENDED,
 * ADP_Stopped_ApplicationExit). QEMU's process exit status is status & 0xFF. */
__attribute__((noreturn)) void semihost_exit(int status);

#ifdef __cplusplus
}
#endif

#endif /* KPCA_FW_SEMIHOST_H */
