/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ttyfilter.h - what the sandbox writes to its pseudo-terminal, cleaned of
 * the escape sequences that act on the caller's terminal outside the pane
 * (clipboard, titles, palette, notifications, file transfer, printing,
 * window operations, reports of screen or host data).
 *
 * Pure: no I/O, no allocation. The runner feeds the bytes read from the
 * pty master in whatever chunks read() returns; the output is the same as
 * for the whole stream in one piece. The list of dropped sequences is one
 * table (jr_ttyfilter_rules), printed in jailrun(1), TERMINAL.
 */
#ifndef JR_TTYFILTER_H
#define JR_TTYFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ttymodes.h"

/* Longest CSI or ESC sequence held back until its final byte; a longer
 * one is dropped (no real program sends one). */
#define JR_TTYFILTER_SEQ_MAX 256
/* Longest OSC/DCS/SOS/PM/APC string swallowed before the filter gives up
 * on its terminator and reads on as text. Only a counter: nothing of the
 * string is kept. */
#define JR_TTYFILTER_STRING_MAX (1024 * 1024)
/* Room jr_ttyfilter_feed() may need for @n input bytes: an invalid byte
 * becomes U+FFFD (3 bytes), and a sequence held back from earlier chunks
 * is written when its final byte arrives. */
#define JR_TTYFILTER_OUT_MAX(n) (3 * (size_t)(n) + JR_TTYFILTER_SEQ_MAX + 4)
/* Upper bound on the number of rules, for the per-rule counters. */
#define JR_TTYFILTER_RULES_MAX 48

enum jr_tty_kind {
	JR_TTY_C0,  /* a single control byte */
	JR_TTY_ESC, /* ESC, intermediates (0x20-0x2f), final */
	JR_TTY_CSI, /* ESC [ or CSI: prefix, parameters, intermediates, final */
	JR_TTY_OSC, /* ESC ] or OSC: a string, by its leading number */
	JR_TTY_DCS, /* ESC P or DCS */
	JR_TTY_SOS, /* ESC X or SOS */
	JR_TTY_PM,  /* ESC ^ or PM */
	JR_TTY_APC, /* ESC _ or APC */
	JR_TTY_BAD, /* cut short, malformed or too long */
};

#define JR_TTY_ANY (-1)

/* One kind of dropped sequence, with the reason (printed in jailrun(1)). */
struct jr_tty_rule {
	enum jr_tty_kind kind;
	const char *show;   /* how jailrun(1) and -v name it, e.g. "OSC 52" */
	const char *reason; /* what it does on the host */
	/* JR_TTY_OSC: numbers in [osc[i][0], osc[i][1]]; all zero = any
	 * number (the catch-all, which must come last). */
	int osc[3][2];
	/* JR_TTY_CSI / JR_TTY_ESC: */
	int prefix;	    /* CSI '?' '>' '=' '<', 0 none, JR_TTY_ANY */
	const char *inter;  /* intermediate bytes exactly; NULL: any */
	const char *finals; /* final bytes that match; NULL: any */
	int param;	    /* a parameter equal to this; JR_TTY_ANY: any */
	int byte;	    /* JR_TTY_C0: the byte */
};

extern const struct jr_tty_rule jr_ttyfilter_rules[];
extern const size_t jr_ttyfilter_rules_count;

struct jr_ttyfilter {
	int state;
	/* The terminal may read raw bytes 0x80-0x9f as C1 controls (its
	 * locale is not UTF-8): characters whose UTF-8 form holds a C1
	 * introducer byte are written as U+FFFD. */
	bool c1_terminal;
	uint8_t seq[JR_TTYFILTER_SEQ_MAX]; /* the ESC/CSI held back */
	size_t seq_len;
	size_t body;   /* where the introducer ends in seq */
	uint8_t u8[4]; /* a UTF-8 character not complete yet */
	size_t u8_len, u8_need;
	uint8_t u8_lo, u8_hi; /* range of the next byte of u8 */
	enum jr_tty_kind str_kind;
	size_t str_len;
	bool str_esc; /* ESC seen: ST if a backslash follows */
	bool osc_num_done;
	int osc_digits;
	long osc_num;
	uint64_t dropped[JR_TTYFILTER_RULES_MAX];
	uint64_t dropped_total;
	/* The modes what passed left set, for the reset at exit. */
	struct jr_ttymodes modes;
};

/*
 * jr_ttyfilter_init - start a filter in the ground state.
 * @c1_terminal: the terminal's locale is not UTF-8 (see the struct)
 */
void jr_ttyfilter_init(struct jr_ttyfilter *f, bool c1_terminal);

/*
 * jr_ttyfilter_feed - filter the next @n bytes of the stream.
 * @out: room for JR_TTYFILTER_OUT_MAX(@n) bytes
 *
 * A sequence or character cut by the end of @in is held until the next
 * call completes it. The output is always valid UTF-8.
 * Return: the number of bytes written to @out.
 */
size_t jr_ttyfilter_feed(struct jr_ttyfilter *f, const uint8_t *in, size_t n,
			 uint8_t *out);

/*
 * jr_ttyfilter_locale_utf8 - does the locale the caller's programs run in
 * say UTF-8? The first of LC_ALL, LC_CTYPE, LANG that is set and not
 * empty decides, as setlocale(3) does; none: no (the C locale).
 */
bool jr_ttyfilter_locale_utf8(const char *lc_all, const char *lc_ctype,
			      const char *lang);

/*
 * jr_ttyfilter_describe - "OSC 0, 1, 2 (2), OSC 52 (1)" into @buf: what
 * was dropped, by rule, for -v at exit. Truncated to @len.
 * Return: the number of sequences dropped.
 */
uint64_t jr_ttyfilter_describe(const struct jr_ttyfilter *f, char *buf,
			       size_t len);

#endif
