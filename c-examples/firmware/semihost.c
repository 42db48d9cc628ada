/*
 * Minimal semihosting (Arm: BKPT 0xAB; RISC-V: the EBREAK sequence) and a
 * small printf for the firmware harness. See semihost.h.
 */
#include "semihost.h"

#include <stdbool.h>

#if defined(__riscv)

/*
 * RISC-V semihosting: op in a0, argument in a1, result in a0, trapped by
 * EBREAK between the two marker instructions below, all three uncompressed
 * and in one page: a 16-byte aligned function of 16 bytes cannot straddle one.
 * QEMU (qemu-system-riscv32 with -semihosting-config enable=on) serves the
 * same calls as on Arm.
 */
int32_t semihost_trap(int32_t op, const void *arg);
__asm__(
    "    .section .text.semihost_trap, \"ax\", @progbits\n"
    "    .balign 16\n"
    "    .globl semihost_trap\n"
    "    .type semihost_trap, @function\n"
    "semihost_trap:\n"
    "    .option push\n"
    "    .option norvc\n"
    "    slli  x0, x0, 0x1f\n"
    "    ebreak\n"
    "    srai  x0, x0, 7\n"
    "    ret\n"
    "    .option pop\n"
    "    .size semihost_trap, . - semihost_trap\n");

int32_t semihost_call(int32_t op, const void *arg)
{
    return semihost_trap(op, arg);
}

#else

int32_t semihost_call(int32_t op, const void *arg)
{
    register int32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#endif

void semihost_write(const char *s)
{
    semihost_call(SEMIHOST_SYS_WRITE0, s);
}

void semihost_puts(const char *s)
{
    semihost_write(s);
    semihost_write("\n");
}

void semihost_exit(int status)
{
    /* SYS_EXIT_EXTENDED takes a two-word block: reason, subcode. QEMU (>= 4.x)
     * exits with `subcode` when reason is ADP_Stopped_ApplicationExit. */
    static uint32_t block[2];
    block[0] = SEMIHOST_ADP_STOPPED_APPLICATION_EXIT;
    block[1] = (uint32_t)status;
    semihost_call(SEMIHOST_SYS_EXIT_EXTENDED, block);
    /* Fallback for hosts without SYS_EXIT_EXTENDED: plain SYS_EXIT (status
     * only 0 / nonzero). */
    semihost_call(SEMIHOST_SYS_EXIT,
                  (const void *)(uintptr_t)(status == 0
                      ? SEMIHOST_ADP_STOPPED_APPLICATION_EXIT
                      : 0x20023 /* ADP_Stopped_RunTimeErrorUnknown */));
    for (;;) {
#if defined(__riscv)
        __asm__ volatile("wfi");
#else
        __asm__ volatile("bkpt 0");
#endif
    }
}

/* ------------------------------------------------------------------------ */
/* Output sinks                                                              */
/* ------------------------------------------------------------------------ */

#define CONSOLE_BUF 128

typedef struct {
    char *buf;      /* destination buffer (snprintf) or the console line buffer */
    size_t cap;     /* usable capacity of buf, excluding the final NUL */
    size_t len;     /* bytes currently stored in buf */
    size_t count;   /* total characters produced */
    bool console;   /* flush to the semihosting console when full / at '\n' */
} sink;

static void sink_flush(sink *o)
{
    if (o->console && o->len > 0) {
        o->buf[o->len] = '\0';
        semihost_write(o->buf);
        o->len = 0;
    }
}

static void sink_putc(sink *o, char c)
{
    o->count++;
    if (o->len < o->cap) {
        o->buf[o->len++] = c;
    }
    if (o->console && (c == '\n' || o->len == o->cap)) {
        sink_flush(o);
    }
}

static void sink_pad(sink *o, char c, int n)
{
    while (n-- > 0) {
        sink_putc(o, c);
    }
}

/* ------------------------------------------------------------------------ */
/* Number formatting                                                         */
/* ------------------------------------------------------------------------ */

enum {
    F_LEFT = 1,   /* '-' */
    F_ZERO = 2,   /* '0' */
    F_PLUS = 4,   /* '+' */
    F_SPACE = 8,  /* ' ' */
    F_ALT = 16    /* '#' */
};

/* Emit sign + body with the field width, honouring '-' and '0'. */
static void emit_field(sink *o, char sign, const char *body, int body_len,
                       int width, int flags)
{
    int total = body_len + (sign ? 1 : 0);
    int pad = width > total ? width - total : 0;
    if (!(flags & F_LEFT) && !(flags & F_ZERO)) {
        sink_pad(o, ' ', pad);
    }
    if (sign) {
        sink_putc(o, sign);
    }
    if (!(flags & F_LEFT) && (flags & F_ZERO)) {
        sink_pad(o, '0', pad);
    }
    for (int i = 0; i < body_len; ++i) {
        sink_putc(o, body[i]);
    }
    if (flags & F_LEFT) {
        sink_pad(o, ' ', pad);
    }
}

/* Unsigned integer to text in the given base, at least min_digits digits.
 * Writes into end-relative storage; returns pointer to the first char. */
static char *utoa_rev(char *end, uint64_t v, unsigned base, bool upper,
                      int min_digits)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char *p = end;
    int n = 0;
    do {
        *--p = digits[v % base];
        v /= base;
        ++n;
    } while (v != 0);
    while (n < min_digits) {
        *--p = '0';
        ++n;
    }
    return p;
}

static const double pow10_tab[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18
};

#define MAX_FLOAT_PREC 17

/* Round x >= 0 (< 2^64) to an integer, ties to even (as glibc's printf does
 * for values that are exact ties in binary, e.g. 2.5 -> "2" with %.0f). */
static uint64_t round_even(double x)
{
    uint64_t n = (uint64_t)x;
    double r = x - (double)n;
    if (r > 0.5 || (r == 0.5 && (n & 1u) != 0u)) {
        ++n;
    }
    return n;
}

/* v > 0 and finite. Returns v scaled to [1, 10) and its decimal exponent. */
static double normalize10(double v, int *exp10)
{
    int e = 0;
    while (v >= 1e32) { v /= 1e32; e += 32; }
    while (v >= 1e8) { v /= 1e8; e += 8; }
    while (v >= 10.0) { v /= 10.0; e += 1; }
    while (v < 1e-32) { v *= 1e32; e -= 32; }
    while (v < 1e-8) { v *= 1e8; e -= 8; }
    while (v < 1.0) { v *= 10.0; e -= 1; }
    *exp10 = e;
    return v;
}

/* %e body for v >= 0 finite, precision p (<= MAX_FLOAT_PREC). */
static int fmt_e(char *out, double v, int p, bool alt)
{
    int e = 0;
    if (p > MAX_FLOAT_PREC) {
        p = MAX_FLOAT_PREC;
    }
    uint64_t digits = 0;
    if (v > 0.0) {
        double m = normalize10(v, &e);
        digits = round_even(m * pow10_tab[p]);
        if (digits >= (uint64_t)pow10_tab[p + 1]) {   /* 9.99.. rounded up to 10 */
            digits /= 10u;
            e += 1;
        }
    }
    char tmp[24];
    char *end = tmp + sizeof tmp;
    char *d = utoa_rev(end, digits, 10, false, p + 1);
    int n = 0;
    out[n++] = *d++;
    if (p > 0 || alt) {
        out[n++] = '.';
    }
    while (d < end) {
        out[n++] = *d++;
    }
    out[n++] = 'e';
    out[n++] = e < 0 ? '-' : '+';
    unsigned ue = (unsigned)(e < 0 ? -e : e);
    char etmp[8];
    char *eend = etmp + sizeof etmp;
    char *ed = utoa_rev(eend, ue, 10, false, 2);
    while (ed < eend) {
        out[n++] = *ed++;
    }
    return n;
}

/* %f body for 0 <= v < 1e18 finite, precision p (<= MAX_FLOAT_PREC). */
static int fmt_f(char *out, double v, int p, bool alt)
{
    if (p > MAX_FLOAT_PREC) {
        p = MAX_FLOAT_PREC;
    }
    uint64_t ip, fd = 0;
    if (p == 0) {
        ip = round_even(v);
    } else {
        ip = (uint64_t)v;
        double frac = v - (double)ip;                 /* exact */
        uint64_t scale = (uint64_t)pow10_tab[p];
        fd = round_even(frac * pow10_tab[p]);
        if (fd >= scale) {
            fd -= scale;
            ip += 1u;
        }
    }
    char tmp[24];
    char *end = tmp + sizeof tmp;
    int n = 0;
    for (char *d = utoa_rev(end, ip, 10, false, 1); d < end; ++d) {
        out[n++] = *d;
    }
    if (p > 0 || alt) {
        out[n++] = '.';
    }
    if (p > 0) {
        for (char *d = utoa_rev(end, fd, 10, false, p); d < end; ++d) {
            out[n++] = *d;
        }
    }
    return n;
}

/* Drop trailing zeros (and a trailing '.') of the fraction in a %g result. */
static int strip_zeros(char *s, int n)
{
    int dot = -1, exp_at = n;
    for (int i = 0; i < n; ++i) {
        if (s[i] == '.') {
            dot = i;
        } else if (s[i] == 'e') {
            exp_at = i;
        }
    }
    if (dot < 0) {
        return n;
    }
    int last = exp_at;
    while (last > dot + 1 && s[last - 1] == '0') {
        --last;
    }
    if (last == dot + 1) {
        --last;   /* drop the '.' */
    }
    int k = last;
    for (int i = exp_at; i < n; ++i) {
        s[k++] = s[i];
    }
    return k;
}

static void format_double(sink *o, double v, char conv, int prec, int width,
                          int flags)
{
    char body[64];
    int n;
    char sign = 0;
    bool neg = (v < 0.0) || (v == 0.0 && 1.0 / v < 0.0);
    bool upper = (conv == 'E' || conv == 'F' || conv == 'G');
    if (neg) {
        sign = '-';
        v = -v;
    } else if (flags & F_PLUS) {
        sign = '+';
    } else if (flags & F_SPACE) {
        sign = ' ';
    }

    if (v != v) {
        emit_field(o, sign, upper ? "NAN" : "nan", 3, width, flags & ~F_ZERO);
        return;
    }
    if (v > 1.7976931348623157e308) {
        emit_field(o, sign, upper ? "INF" : "inf", 3, width, flags & ~F_ZERO);
        return;
    }
    if (prec < 0) {
        prec = 6;
    }
    if (prec > MAX_FLOAT_PREC) {
        prec = MAX_FLOAT_PREC;
    }
    bool alt = (flags & F_ALT) != 0;

    switch (conv) {
    case 'f':
    case 'F':
        n = (v < 1e18) ? fmt_f(body, v, prec, alt) : fmt_e(body, v, prec, alt);
        break;
    case 'e':
    case 'E':
        n = fmt_e(body, v, prec, alt);
        break;
    default: {   /* g, G */
        int p = prec == 0 ? 1 : prec;
        int x = 0;
        if (v > 0.0) {
            /* exponent after rounding to p significant digits */
            char probe[40];
            int pn = fmt_e(probe, v, p - 1, false);
            int i = 0;
            while (i < pn && probe[i] != 'e') {
                ++i;
            }
            int ex = 0;
            for (int j = i + 2; j < pn; ++j) {
                ex = ex * 10 + (probe[j] - '0');
            }
            x = probe[i + 1] == '-' ? -ex : ex;
        }
        if (x < p && x >= -4) {
            n = fmt_f(body, v, p - 1 - x, alt);
        } else {
            n = fmt_e(body, v, p - 1, alt);
        }
        if (!alt) {
            n = strip_zeros(body, n);
        }
        break;
    }
    }
    if (upper) {
        for (int i = 0; i < n; ++i) {
            if (body[i] == 'e') {
                body[i] = 'E';
            }
        }
    }
    emit_field(o, sign, body, n, width, flags);
}

/* ------------------------------------------------------------------------ */
/* printf core                                                               */
/* ------------------------------------------------------------------------ */

static void format(sink *o, const char *fmt, va_list ap)
{
    while (*fmt) {
        char c = *fmt++;
        if (c != '%') {
            sink_putc(o, c);
            continue;
        }
        int flags = 0;
        for (;; ++fmt) {
            if (*fmt == '-') flags |= F_LEFT;
            else if (*fmt == '0') flags |= F_ZERO;
            else if (*fmt == '+') flags |= F_PLUS;
            else if (*fmt == ' ') flags |= F_SPACE;
            else if (*fmt == '#') flags |= F_ALT;
            else break;
        }
        int width = 0;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                flags |= F_LEFT;
                width = -width;
            }
            ++fmt;
        } else {
            while (*fmt >= '0' && *fmt <= '9') {
                width = width * 10 + (*fmt++ - '0');
            }
        }
        int prec = -1;
        if (*fmt == '.') {
            ++fmt;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                ++fmt;
            } else {
                while (*fmt >= '0' && *fmt <= '9') {
                    prec = prec * 10 + (*fmt++ - '0');
                }
            }
        }
        int lng = 0;   /* 0: int, 1: long, 2: long long, 3: size_t */
        if (*fmt == 'l') {
            ++fmt;
            lng = 1;
            if (*fmt == 'l') {
                ++fmt;
                lng = 2;
            }
        } else if (*fmt == 'z') {
            ++fmt;
            lng = 3;
        } else if (*fmt == 'h') {
            ++fmt;
            if (*fmt == 'h') {
                ++fmt;
            }
        }
        char conv = *fmt;
        if (conv == '\0') {
            break;
        }
        ++fmt;

        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X': {
            uint64_t u;
            char sign = 0;
            if (conv == 'd' || conv == 'i') {
                int64_t s;
                if (lng == 2) s = va_arg(ap, long long);
                else if (lng == 1) s = va_arg(ap, long);
                else if (lng == 3) s = (int64_t)va_arg(ap, size_t);
                else s = va_arg(ap, int);
                if (s < 0) {
                    sign = '-';
                    u = (uint64_t)0 - (uint64_t)s;
                } else {
                    u = (uint64_t)s;
                    sign = (flags & F_PLUS) ? '+' : (flags & F_SPACE) ? ' ' : 0;
                }
            } else {
                if (lng == 2) u = va_arg(ap, unsigned long long);
                else if (lng == 1) u = va_arg(ap, unsigned long);
                else if (lng == 3) u = va_arg(ap, size_t);
                else u = va_arg(ap, unsigned);
            }
            char tmp[24];
            char *end = tmp + sizeof tmp;
            unsigned base = (conv == 'x' || conv == 'X') ? 16u : 10u;
            char *p = utoa_rev(end, u, base, conv == 'X', prec < 0 ? 1 : prec);
            if (prec == 0 && u == 0) {
                p = end;
            }
            if (prec >= 0) {
                flags &= ~F_ZERO;
            }
            emit_field(o, sign, p, (int)(end - p), width, flags);
            break;
        }
        case 'c': {
            char ch = (char)va_arg(ap, int);
            emit_field(o, 0, &ch, 1, width, flags & ~F_ZERO);
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (s == NULL) {
                s = "(null)";
            }
            int n = 0;
            while (s[n] != '\0' && (prec < 0 || n < prec)) {
                ++n;
            }
            emit_field(o, 0, s, n, width, flags & ~F_ZERO);
            break;
        }
        case 'p': {
            char tmp[12];
            char *end = tmp + sizeof tmp;
            char *p = utoa_rev(end, (uintptr_t)va_arg(ap, void *), 16, false, 8);
            *--p = 'x';
            *--p = '0';
            emit_field(o, 0, p, (int)(end - p), width, flags & ~F_ZERO);
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
            format_double(o, va_arg(ap, double), conv, prec, width, flags);
            break;
        case '%':
            sink_putc(o, '%');
            break;
        default:
            sink_putc(o, '%');
            sink_putc(o, conv);
            break;
        }
    }
}

int semihost_vprintf(const char *fmt, va_list ap)
{
    char line[CONSOLE_BUF + 1];
    sink o = { line, CONSOLE_BUF, 0, 0, true };
    format(&o, fmt, ap);
    sink_flush(&o);
    return (int)o.count;
}

int semihost_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = semihost_vprintf(fmt, ap);
    va_end(ap);
    return n;
}

int semihost_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    sink o = { buf, size > 0 ? size - 1 : 0, 0, 0, false };
    va_list ap;
    va_start(ap, fmt);
    format(&o, fmt, ap);
    va_end(ap);
    if (size > 0) {
        buf[o.len] = '\0';
    }
    return (int)o.count;
}
