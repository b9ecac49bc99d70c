// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_config.c - libFuzzer target for jailrun.conf(5) and the managed
 * policy's grammar.
 *
 * The input is read three ways: as a configuration file whose every
 * "include" serves the same input again under a new name (so includes
 * nest until the depth bound or the loop check stops them), merged with a
 * command line and printed as --print-config would; and as a managed
 * policy. Besides ASan/UBSan/leak findings, it aborts on broken
 * invariants: a refusal says why and names the file; an accepted file's
 * --print-config output is accepted again (what jailrun prints, it reads).
 *
 * Build and run (see also tests/fuzz/corpus/config/):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -iquote src -include /dev/null src/lib/err.c src/policy/conffile.c \
 *     src/policy/managed.c src/policy/options.c src/policy/policy.c tests/fuzz/fuzz_config.c \
 *     -o /tmp/fuzz_config
 *   /tmp/fuzz_config tests/fuzz/corpus/config -max_total_time=60
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "conffile.h"
#include "fuzz.h"

struct input {
	const char *data;
	size_t size;
	int served;
};

static int same_input(void *ctx, const char *path, char **text, size_t *len,
		      char **identity, struct jr_err *err)
{
	struct input *in = ctx;

	/* Every third include names a file already open: a loop. */
	*text = malloc(in->size + 1);
	if (!*text)
		return jr_err_set(err, ENOMEM, "out of memory");
	memcpy(*text, in->data, in->size);
	(*text)[in->size] = '\0';
	*len = in->size;
	if (asprintf(identity, "id%d", in->served++ % 3 == 2 ? 0 : in->served) <
	    0) {
		free(*text);
		*text = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

static void reprint_reads_back(const char *out, size_t len)
{
	struct jr_config again;
	struct jr_err err = { 0 };
	_cleanup_free_ char *cut = NULL;
	char *deny;

	/* The managed policy's lines are printed after the options. */
	cut = strndup(out, len);
	check(cut != NULL);
	deny = strstr(cut, "\ndeny ");
	if (!deny)
		deny = strstr(cut, "\nrequire ");
	if (deny)
		deny[1] = '\0';
	jr_config_init(&again);
	if (jr_config_parse_text(&again, "printed", cut, strlen(cut), &err) <
	    0) {
		fprintf(stderr, "printed config refused: %s\n%s", err.msg, cut);
		abort();
	}
	jr_config_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { (const char *)data, size, 1 };
	char *argv[] = { (char *)"jailrun", (char *)"--print-config", NULL };
	struct jr_config cfg;
	struct jr_options opts;
	struct jr_err err = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	jr_config_init(&cfg);
	cfg.reader = same_input;
	cfg.reader_ctx = &in;
	if (jr_config_parse_text(&cfg, "f.conf", (const char *)data, size,
				 &err) < 0) {
		/* "file:line: ..." of this file or of one it includes */
		check(err.code != 0 && err.msg[0] != '\0');
		check(strstr(err.msg, ":") != NULL);
	} else if (jr_config_build(&cfg, NULL, 2, argv, &opts, &err) == 0) {
		f = open_memstream(&out, &len);
		check(f != NULL);
		jr_config_print(&cfg, &opts, NULL, f);
		fclose(f);
		reprint_reads_back(out, len);
		free(out);
		jr_options_release(&opts);
	} else {
		check(err.msg[0] != '\0');
	}
	jr_config_release(&cfg);

	memset(&err, 0, sizeof(err));
	jr_managed_init(&cfg.managed);
	if (jr_managed_parse_text(&cfg.managed, "p.conf", (const char *)data,
				  size, &err) < 0)
		check(strncmp(err.msg, "p.conf:", 7) == 0);
	jr_managed_release(&cfg.managed);
	return 0;
}
