// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * conffile.c - configuration files, profiles and --print-config.
 *
 * Theory of operation: a line "keyword value" of jailrun.conf(5) means the
 * option "--keyword value", the keyword being the option's long name in
 * options.c's getopt table. So every option has a keyword, an option added
 * later gets one for free, and there is one validator: each line's
 * grammar is checked on its own by jr_options_parse_setting() as it is
 * read (so its error carries "file:line"; the rules between options wait
 * for the merge, where the rest may come from), then the settings of every file are put before the command
 * line's own options in one vector, and that vector is what jailrun runs
 * with. getopt's order makes "the last one wins" for options that hold one
 * value and "all of them" for lists.
 *
 * Two refinements make the merge say what the user meant:
 *  - a single-valued option set on the command line drops every file's
 *    setting of it, and a later file's drops an earlier file's, so options
 *    that refuse to be given twice (--user, --workdir) are not tripped by
 *    a file, and -v/-q or --log/--log-fd from different sources do not
 *    collide (they form one group);
 *  - a flag (an option without a value) takes "yes", nothing, or "no";
 *    "no" only removes what an earlier file set.
 * Which options are lists is the table list_options[] below: an option
 * missing from it is single-valued, so a file's settings of it yield to
 * the command line's (never a wider policy, only a surprise to fix here).
 *
 * Files are read whole (bounded), must be regular files, and "include
 * FILE" is relative to the including file's directory, nested at most
 * JR_CONFIG_MAX_DEPTH deep; a file that includes itself, directly or not,
 * is an error naming the line.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "conffile.h"
#include "home.h"
#include "io.h"
#include "fspolicy.h"

/* Options that accumulate: every setting of every source is kept. */
static const char *const list_options[] = {
	"allow",      "allow-file",    "expose",   "rw",      "ro",
	"hide",	      "tmpfs",	       "lane",	   "publish", "secret",
	"allow-http", "allow-private", "rlimit",   "inspect", "setenv",
	"unsetenv",   "env-file",      "lane-env",
};

/* Options whose value is a path: a leading "~" or "$HOME" is expanded
 * (jailrun.conf(5), PATHS); "include" too. */
static const char *const path_options[] = {
	"rw",  "ro",   "hide",	 "tmpfs",	"workdir", "allow-file",
	"log", "json", "expose", "upstream-ca", "learn",   "control",
};

/* Command-line actions and sources: they mean nothing in a file. */
static const struct {
	const char *name;
	const char *why;
} refused[] = {
	{ "help", "a command-line action" },
	{ "version", "a command-line action" },
	{ "check", "a command-line action" },
	{ "print-config", "a command-line action" },
	{ "config", "use 'include FILE' in a file" },
	{ "profile", "use 'include FILE' in a file" },
};

static bool is_list_option(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(list_options); i++)
		if (strcmp(name, list_options[i]) == 0)
			return true;
	return false;
}

/* Options that cannot be combined merge as one setting. */
static const char *group_of(const char *name)
{
	if (strcmp(name, "quiet") == 0)
		return "verbose";
	if (strcmp(name, "log-fd") == 0)
		return "log";
	return name;
}

/* The default reader: a regular file, read whole, identified by device
 * and inode. */
static int read_file(void *ctx, const char *path, char **text, size_t *len,
		     char **identity, struct jr_err *err)
{
	struct stat st;
	int r;

	(void)ctx;
	r = jr_read_regular(path, path, JR_CONFIG_MAX_BYTES, text, len, &st,
			    err);
	if (r < 0)
		return r;
	if (asprintf(identity, "%llu:%llu", (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino) < 0) {
		free(*text);
		*text = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

void jr_config_init(struct jr_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	jr_managed_init(&cfg->managed);
	cfg->reader = read_file;
}

void jr_config_release(struct jr_config *cfg)
{
	for (size_t i = 0; i < cfg->n_names; i++)
		free(cfg->names[i]);
	free(cfg->names);
	for (size_t i = 0; i < cfg->n; i++) {
		free(cfg->set[i].value);
		free(cfg->set[i].origin);
	}
	free(cfg->set);
	free(cfg->argv);
	free(cfg->origin);
	for (int i = 0; i < cfg->depth; i++)
		free(cfg->stack[i]);
	jr_managed_release(&cfg->managed);
	jr_config_init(cfg);
}

static const struct option *find_option(const char *name)
{
	for (const struct option *o = jr_options_long_table(); o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* One line alone through the one validator, so its error has file:line. */
static int validate_setting(const struct jr_config_setting *s,
			    struct jr_err *err)
{
	char opt[80];
	char *argv[] = { (char *)"jailrun", opt, s->value, (char *)"--",
			 (char *)"true",    NULL };
	struct jr_options tmp;
	int argc = 5;

	snprintf(opt, sizeof(opt), "--%s", s->name);
	if (!s->value) {
		argv[2] = argv[3];
		argv[3] = argv[4];
		argv[4] = NULL;
		argc = 4;
	}
	if (jr_options_parse_setting(argc, argv, &tmp, err) < 0)
		return jr_err_prefix(err, "%s: ", s->origin);
	jr_options_release(&tmp);
	/* The allowlist grammar is policy.c's: checked here too, so a bad
	 * entry is named with its line. */
	if (strcmp(s->name, "allow") == 0) {
		struct jr_policy p;
		int r;

		jr_policy_init(&p);
		r = jr_policy_add(&p, s->value, err);
		jr_policy_free(&p);
		if (r < 0)
			return jr_err_prefix(err, "%s: ", s->origin);
	}
	return 0;
}

static bool is_path_option(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(path_options); i++)
		if (strcmp(name, path_options[i]) == 0)
			return true;
	return false;
}

/*
 * expand_home() - "~", "~/P", "$HOME", "$HOME/P", "${HOME}" and
 * "${HOME}/P" at the start of the path @value of @kw, with jr_caller_home().
 * Return: 0 with *@out the expanded path (NULL: nothing to expand), or
 * -errno with @err set ("~user", no home).
 */
static int expand_home(const char *origin, const char *kw, const char *value,
		       char **out, struct jr_err *err)
{
	static const char *const forms[] = { "~", "${HOME}", "$HOME" };
	const char *rest = NULL, *home;

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(forms) && !rest; i++) {
		size_t n = strlen(forms[i]);

		if (strncmp(value, forms[i], n) == 0 &&
		    (value[n] == '\0' || value[n] == '/'))
			rest = value + n;
	}
	if (!rest && value[0] == '~')
		return jr_err_set(
		    err, EINVAL,
		    "%s: %s %s: only '~' and '~/' are expanded, not '~USER': write the path out",
		    origin, kw, value);
	if (!rest)
		return 0;
	home = jr_caller_home();
	if (!home)
		return jr_err_set(
		    err, ENOENT,
		    "%s: %s %s: no home directory to expand it with (HOME is unset and uid %u has no passwd entry): write the path out",
		    origin, kw, value, (unsigned)getuid());
	/* "/" as the home would make "~/x" "//x": keep it clean. */
	if (strcmp(home, "/") == 0 && *rest)
		home = "";
	if (asprintf(out, "%s%s", home, rest) < 0) {
		*out = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * expand_setenv() - "setenv NAME=~/P": the value after '=' expanded as a
 * path is (expand_home()), so that a profile can point a tool's cache
 * variable (npm_config_cache, PIP_CACHE_DIR) at the caller's directory,
 * whatever HOME the command gets. Return: as expand_home().
 */
static int expand_setenv(const char *origin, const char *value, char **out,
			 struct jr_err *err)
{
	const char *eq = strchr(value, '=');
	_cleanup_free_ char *v = NULL;
	int r;

	*out = NULL;
	if (!eq)
		return 0; /* the option's own check names it */
	r = expand_home(origin, "setenv", eq + 1, &v, err);
	if (r < 0 || !v)
		return r;
	if (asprintf(out, "%.*s=%s", (int)(eq - value), value, v) < 0) {
		*out = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/* An unknown keyword, with the one it most likely meant. */
static int unknown_keyword(const char *origin, const char *kw,
			   struct jr_err *err)
{
	static const char *const file_words[] = { "include", NULL };
	const char *hint = jr_options_suggest(kw, file_words);

	if (hint)
		return jr_err_set(
		    err, EINVAL,
		    "%s: unknown keyword '%s': did you mean '%s'? (a keyword is a long option's name; see jailrun.conf(5))",
		    origin, kw, hint);
	return jr_err_set(
	    err, EINVAL,
	    "%s: unknown keyword '%s' (a keyword is a long option's name; see jailrun.conf(5))",
	    origin, kw);
}

static int add_setting(struct jr_config *cfg, const char *origin,
		       const char *kw, const char *value, struct jr_err *err)
{
	const struct option *o = find_option(kw);
	struct jr_config_setting s = { 0 };
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (strcmp(kw, refused[i].name) == 0)
			return jr_err_set(
			    err, EINVAL,
			    "%s: '%s' cannot be set in a configuration file (%s)",
			    origin, kw, refused[i].why);
	if (!o)
		return unknown_keyword(origin, kw, err);
	if (cfg->n >= JR_CONFIG_MAX_SETTINGS)
		return jr_err_set(err, E2BIG,
				  "%s: more than %d settings in all files",
				  origin, JR_CONFIG_MAX_SETTINGS);
	s.name = o->name;
	if (o->has_arg == no_argument &&
	    jr_options_word_follows(o->name, value)) {
		s.value = strdup(value); /* "ask tty": "--ask tty" */
		if (!s.value)
			return jr_err_set(err, ENOMEM, "out of memory");
	} else if (o->has_arg == no_argument) {
		if (value && strcmp(value, "no") == 0)
			s.negated = true;
		else if (value && strcmp(value, "yes") != 0)
			return jr_err_set(
			    err, EINVAL,
			    "%s: %s is a flag: expected yes, no or nothing, not '%s'",
			    origin, kw, value);
	} else {
		if (!value || !*value)
			return jr_err_set(err, EINVAL, "%s: %s needs a value",
					  origin, kw);
		if (is_path_option(o->name) &&
		    expand_home(origin, kw, value, &s.value, err) < 0)
			return -EINVAL;
		if (strcmp(o->name, "setenv") == 0 &&
		    expand_setenv(origin, value, &s.value, err) < 0)
			return -EINVAL;
		if (!s.value)
			s.value = strdup(value);
		if (!s.value)
			return jr_err_set(err, ENOMEM, "out of memory");
	}
	s.origin = strdup(origin);
	if (!s.origin) {
		free(s.value);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	/* "ask tty": the word is the whole value, checked above; parsed
	 * alone, --ask tty would only trip the checks between options. */
	r = s.negated || (o->has_arg == no_argument && s.value)
		? 0
		: validate_setting(&s, err);
	if (r == 0 && cfg->n == cfg->cap) {
		size_t cap = cfg->cap ? cfg->cap * 2 : 16;
		struct jr_config_setting *grown =
		    realloc(cfg->set, cap * sizeof(*grown));

		if (!grown)
			r = jr_err_set(err, ENOMEM, "out of memory");
		else {
			cfg->set = grown;
			cfg->cap = cap;
		}
	}
	if (r < 0) {
		free(s.value);
		free(s.origin);
		return r;
	}
	cfg->set[cfg->n++] = s;
	return 0;
}

static int load_file(struct jr_config *cfg, const char *path,
		     const char *origin, struct jr_err *err);

/* "include FILE": relative to the including file's directory. */
static int include_file(struct jr_config *cfg, const char *origin,
			const char *name, const char *file, struct jr_err *err)
{
	_cleanup_free_ char *path = NULL, *expanded = NULL;
	const char *slash = strrchr(name, '/');

	if (!file || !*file)
		return jr_err_set(err, EINVAL, "%s: include needs a file name",
				  origin);
	if (expand_home(origin, "include", file, &expanded, err) < 0)
		return -EINVAL;
	if (expanded)
		file = expanded;
	if (file[0] == '/' || !slash)
		path = strdup(file);
	else if (asprintf(&path, "%.*s/%s", (int)(slash - name), name, file) <
		 0)
		path = NULL;
	if (!path)
		return jr_err_set(err, ENOMEM, "out of memory");
	return load_file(cfg, path, origin, err);
}

/* What config_line() needs besides the line: the settings and the file. */
struct config_parse {
	struct jr_config *cfg;
	const char *name;
};

/* One line of a configuration file (jr_conf_line_fn). */
static int config_line(void *ctx, const char *origin, char *kw, char *value,
		       struct jr_err *err)
{
	const struct config_parse *p = ctx;

	if (strcmp(kw, "include") == 0)
		return include_file(p->cfg, origin, p->name, value, err);
	if (strcmp(kw, "deny") == 0 || strcmp(kw, "require") == 0)
		return jr_err_set(
		    err, EINVAL,
		    "%s: '%s' belongs in the managed policy %s only", origin,
		    kw, JR_POLICY_FILE);
	return add_setting(p->cfg, origin, kw, value, err);
}

int jr_config_parse_text(struct jr_config *cfg, const char *name,
			 const char *text, size_t len, struct jr_err *err)
{
	struct config_parse p = { .cfg = cfg, .name = name };

	return jr_conf_each_line(name, text, len, config_line, &p, err);
}

/*
 * load_file - read and parse @path. @origin: the include line ("file:n"),
 * or NULL for a file named on the command line. Errors of the file itself
 * (unreadable, a loop) are prefixed with @origin; errors inside it name
 * their own line.
 */
static int load_file(struct jr_config *cfg, const char *path,
		     const char *origin, struct jr_err *err)
{
	_cleanup_free_ char *text = NULL, *id = NULL;
	size_t len = 0;
	int r;

	r = cfg->reader(cfg->reader_ctx, path, &text, &len, &id, err);
	if (r < 0)
		return origin ? jr_err_prefix(err, "%s: include: ", origin) : r;
	for (int i = 0; i < cfg->depth; i++)
		if (strcmp(cfg->stack[i], id) == 0)
			return jr_err_set(
			    err, ELOOP,
			    "%s: include loop: %s is already being read",
			    origin ? origin : path, path);
	if (cfg->depth >= JR_CONFIG_MAX_DEPTH)
		return jr_err_set(err, ELOOP,
				  "%s: includes nested deeper than %d",
				  origin ? origin : path, JR_CONFIG_MAX_DEPTH);
	cfg->stack[cfg->depth++] = steal_pointer(&id);
	r = jr_config_parse_text(cfg, path, text, len, err);
	free(cfg->stack[--cfg->depth]);
	cfg->stack[cfg->depth] = NULL;
	return r;
}

int jr_config_load_file(struct jr_config *cfg, const char *path,
			struct jr_err *err)
{
	return load_file(cfg, path, NULL, err);
}

/* The user's profile directory: ~/.config/jailrun/profiles. */
static char *user_profile_path(const char *name)
{
	const char *home = jr_caller_home();
	char *path;

	if (!home)
		return NULL;
	if (asprintf(&path, "%s/.config/jailrun/profiles/%s.conf", home, name) <
	    0)
		return NULL;
	return path;
}

int jr_config_load_profile(struct jr_config *cfg, const char *name,
			   struct jr_err *err)
{
	_cleanup_free_ char *sys = NULL, *user = NULL;
	bool found = false;
	int r;

	if (!jr_profile_name_valid(name))
		return jr_err_set(
		    err, EINVAL,
		    "--profile %s: expected a name of 1 to 64 letters, digits, '_' or '-'",
		    name);
	if (asprintf(&sys, "%s/%s.conf", JR_PROFILE_DIR, name) < 0)
		return jr_err_set(err, ENOMEM, "out of memory");
	user = user_profile_path(name);
	if (access(sys, F_OK) == 0) {
		r = jr_config_load_file(cfg, sys, err);
		if (r < 0)
			return r;
		found = true;
	}
	if (user && access(user, F_OK) == 0) {
		r = jr_config_load_file(cfg, user, err);
		if (r < 0)
			return r;
		found = true;
	}
	if (!found)
		return jr_err_set(
		    err, ENOENT, "--profile %s: neither %s nor %s exists", name,
		    sys, user ? user : "~/.config/jailrun/profiles/NAME.conf");
	return 0;
}

/*
 * Walk @argv as jr_options_parse() would, calling @fn for each option
 * recognised (its table entry, its value or NULL, the index of its last
 * element). Unknown options and missing values are skipped: the real parse
 * reports them.
 */
static int scan_options(int argc, char **argv,
			int (*fn)(void *ctx, const struct option *o,
				  const char *value, int index),
			void *ctx)
{
	const struct option *table = jr_options_long_table();
	int c, li, r;

	optind = 0;
	opterr = 0;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, JR_OPTIONS_SHORT, table, &li);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			continue;
		if (li < 0)
			for (int i = 0; table[i].name; i++)
				if (table[i].val == c && !table[i].flag) {
					li = i;
					break;
				}
		if (li < 0)
			continue;
		r = fn(ctx, &table[li], optarg, optind - 1);
		if (r < 0)
			return r;
		if (optind < argc &&
		    jr_options_word_follows(table[li].name, argv[optind]))
			optind++; /* "--ask tty": not the command */
	}
	return 0;
}

struct prescan {
	const char **cmdline_groups; /* single-valued groups seen */
	size_t n_groups;
	/* --config/--profile in order: loading parses lines with getopt, so
	 * it waits until this walk is done. */
	const struct option **src_opt;
	const char **src_value;
	size_t n_src;
};

static int prescan_one(void *ctx, const struct option *o, const char *value,
		       int index)
{
	struct prescan *ps = ctx;

	if (strcmp(o->name, "config") == 0 || strcmp(o->name, "profile") == 0) {
		if (value && *value) {
			ps->src_opt[ps->n_src] = o;
			ps->src_value[ps->n_src++] = value;
		}
		return 0;
	}
	if (!is_list_option(o->name))
		ps->cmdline_groups[ps->n_groups++] = group_of(o->name);
	return 0;
}

static bool in_groups(const struct prescan *ps, const char *group)
{
	for (size_t i = 0; i < ps->n_groups; i++)
		if (strcmp(ps->cmdline_groups[i], group) == 0)
			return true;
	return false;
}

/*
 * Which file settings reach the vector: walking back from the last, a
 * single-valued setting is dropped when a later one of its group was seen
 * (or the command line has one); "no" drops earlier ones and itself.
 * Linear: the groups seen are at most the options of the table.
 */
static int mark_dropped(const struct jr_config *cfg, const struct prescan *ps,
			bool *drop)
{
	_cleanup_free_ const char **seen = calloc(cfg->n + 1, sizeof(*seen));
	size_t n_seen = 0;

	if (!seen)
		return -ENOMEM;
	for (size_t i = cfg->n; i-- > 0;) {
		const struct jr_config_setting *s = &cfg->set[i];
		const char *g = group_of(s->name);
		bool later = false;

		if (is_list_option(s->name)) {
			drop[i] = false;
			continue;
		}
		for (size_t j = 0; j < n_seen && !later; j++)
			later = seen[j] == g || strcmp(seen[j], g) == 0;
		drop[i] = s->negated || later || in_groups(ps, g);
		if (!later)
			seen[n_seen++] = g;
	}
	return 0;
}

static int merge(struct jr_config *cfg, const struct prescan *ps, int argc,
		 char **argv, struct jr_err *err)
{
	size_t max = 1 + 2 * cfg->n + (size_t)argc + 1;
	_cleanup_free_ bool *drop = calloc(cfg->n + 1, sizeof(*drop));
	int k = 0;

	cfg->argv = calloc(max, sizeof(*cfg->argv));
	cfg->origin = calloc(max, sizeof(*cfg->origin));
	cfg->names = calloc(cfg->n + 1, sizeof(*cfg->names));
	if (!drop || !cfg->argv || !cfg->origin || !cfg->names ||
	    mark_dropped(cfg, ps, drop) < 0)
		return jr_err_set(err, ENOMEM, "out of memory");
	cfg->argv[k++] = argv[0];
	for (size_t i = 0; i < cfg->n; i++) {
		struct jr_config_setting *s = &cfg->set[i];
		char *name;

		if (drop[i])
			continue;
		if (asprintf(&name, "--%s", s->name) < 0)
			return jr_err_set(err, ENOMEM, "out of memory");
		cfg->names[cfg->n_names++] = name;
		cfg->argv[k] = name;
		cfg->origin[k++] = s->origin;
		if (s->value) {
			cfg->argv[k] = s->value;
			cfg->origin[k++] = s->origin;
		}
	}
	for (int i = 1; i < argc; i++)
		cfg->argv[k++] = argv[i];
	cfg->argc = k;
	return 0;
}

/* ------------------------------------------------- effective values */

static void fmt_ms(char *buf, size_t len, uint64_t ms)
{
	if (ms % 1000)
		snprintf(buf, len, "%llu.%03llu",
			 (unsigned long long)(ms / 1000),
			 (unsigned long long)(ms % 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)(ms / 1000));
}

/*
 * The value jailrun runs with for options whose default or derived value
 * the vector does not show (net follows --allow). NULL: not known here;
 * the last setting in the vector is then the value.
 */
static const char *known_value(const struct jr_options *o, const char *name,
			       char *buf, size_t len)
{
	if (strcmp(name, "net") == 0)
		return jr_net_mode_name(o->net);
	if (strcmp(name, "seccomp") == 0)
		return o->seccomp ? "on" : "off";
	if (strcmp(name, "transparent") == 0)
		return o->transparent ? "on" : "off";
	if (strcmp(name, "idmap") == 0)
		return o->idmap ? "on" : "off";
	if (strcmp(name, "landlock") == 0)
		return o->landlock == JR_LANDLOCK_REQUIRE ? "require"
		       : o->landlock == JR_LANDLOCK_OFF	  ? "off"
							  : "auto";
	if (strcmp(name, "fs") == 0)
		return jr_fs_mode_name(o->fs_mode);
	if (strcmp(name, "on-tamper") == 0)
		return o->tamper_kill ? "kill" : "restore";
	if (strcmp(name, "allow-nested") == 0)
		return o->allow_nested ? "yes" : "no";
	if (strcmp(name, "host-root") == 0)
		return o->host_root ? "yes" : "no";
	if (strcmp(name, "raw-tty") == 0)
		return o->raw_tty ? "yes" : "no";
	if (strcmp(name, "gateway") == 0) {
		char addr[INET_ADDRSTRLEN];

		if (!inet_ntop(AF_INET, &o->gateway.relay, addr, sizeof(addr)))
			return NULL;
		snprintf(buf, len, "%s/%u", addr, (unsigned)o->gateway.prefix);
		return buf;
	}
	if (strcmp(name, "max-conns") == 0) {
		snprintf(buf, len, "%u", o->max_conns);
		return buf;
	}
	if (strcmp(name, "header-timeout") == 0) {
		fmt_ms(buf, len, o->header_timeout_ms);
		return buf;
	}
	if (strcmp(name, "connect-timeout") == 0) {
		fmt_ms(buf, len, o->connect_timeout_ms);
		return buf;
	}
	if (strcmp(name, "idle-timeout") == 0) {
		fmt_ms(buf, len, o->idle_timeout_ms);
		return buf;
	}
	if (strcmp(name, "watchdog-interval") == 0) {
		fmt_ms(buf, len, o->watchdog_interval_ms);
		return buf;
	}
	return NULL;
}

struct lookup {
	const char *name;
	const char *value; /* last value; "yes" for a flag */
	int index;	   /* its element; -1: none */
};

static int lookup_one(void *ctx, const struct option *o, const char *value,
		      int index)
{
	struct lookup *l = ctx;

	if (strcmp(o->name, l->name) == 0) {
		l->value = o->has_arg == no_argument ? "yes" : value;
		l->index = index;
	}
	return 0;
}

static const char *origin_of(const struct jr_config *cfg, int index)
{
	if (index < 0)
		return "default";
	return cfg->origin[index] ? cfg->origin[index] : "command line";
}

static int check_requires(const struct jr_config *cfg,
			  const struct jr_options *opts, struct jr_err *err)
{
	for (size_t i = 0; i < cfg->managed.n_req; i++) {
		const struct jr_managed_require *rq = &cfg->managed.req[i];
		struct lookup l = { .name = rq->option, .index = -1 };
		const char *eff;
		char buf[64];
		bool ok = false;

		scan_options(cfg->argc, cfg->argv, lookup_one, &l);
		eff = known_value(opts, rq->option, buf, sizeof(buf));
		if (!eff)
			eff = l.value;
		if (!eff && find_option(rq->option)->has_arg == no_argument)
			eff = "no";
		for (size_t v = 0; eff && v < rq->n_values; v++)
			ok = ok || strcmp(eff, rq->values[v]) == 0;
		if (!ok)
			return jr_err_set(
			    err, EPERM,
			    "the managed policy requires %s %s (%s), but it is %s (%s): refused",
			    rq->option, rq->text, rq->origin,
			    eff ? eff : "not set", origin_of(cfg, l.index));
	}
	return 0;
}

int jr_config_build(struct jr_config *cfg, const char *policy_path, int argc,
		    char **argv, struct jr_options *opts, struct jr_err *err)
{
	_cleanup_free_ const char **groups = NULL, **src_value = NULL;
	_cleanup_free_ const struct option **src_opt = NULL;
	struct prescan ps = { 0 };
	int r;

	if (policy_path) {
		r = jr_managed_load(&cfg->managed, policy_path, err);
		if (r < 0)
			return r;
	}
	groups = calloc((size_t)argc + 1, sizeof(*groups));
	src_value = calloc((size_t)argc + 1, sizeof(*src_value));
	src_opt = calloc((size_t)argc + 1, sizeof(*src_opt));
	if (!groups || !src_value || !src_opt)
		return jr_err_set(err, ENOMEM, "out of memory");
	ps.cmdline_groups = groups;
	ps.src_value = src_value;
	ps.src_opt = src_opt;
	scan_options(argc, argv, prescan_one, &ps);
	for (size_t i = 0; i < ps.n_src; i++) {
		if (strcmp(src_opt[i]->name, "config") == 0)
			r = jr_config_load_file(cfg, src_value[i], err);
		else if (jr_profile_name_valid(src_value[i]))
			r = jr_config_load_profile(cfg, src_value[i], err);
		else
			r = 0; /* the parse below names the rule */
		if (r < 0)
			return r;
	}
	r = merge(cfg, &ps, argc, argv, err);
	if (r < 0)
		return r;
	r = jr_options_parse_run(cfg->argc, cfg->argv, opts, err);
	if (r < 0)
		return r;
	if (opts->action == JR_ACTION_RUN ||
	    opts->action == JR_ACTION_PRINT_CONFIG) {
		r = check_requires(cfg, opts, err);
		if (r < 0) {
			jr_options_release(opts);
			return r;
		}
	}
	return 0;
}

/* The --allow and --lane elements of the vector: option, value and
 * index, for origins (a NAME:PORT lane is an allow entry too). */
struct allow_list {
	const char **option;
	const char **value;
	int *index;
	size_t n;
};

static int allow_list_one(void *ctx, const struct option *o, const char *value,
			  int index)
{
	struct allow_list *a = ctx;

	if ((strcmp(o->name, "allow") == 0 || strcmp(o->name, "lane") == 0) &&
	    value) {
		a->option[a->n] = o->name;
		a->value[a->n] = value;
		a->index[a->n++] = index;
	}
	return 0;
}

/*
 * allow_list_find() - "OPTION VALUE (ORIGIN)" into @what for the first
 * element of @a whose option is @only (NULL: allow or lane) and whose
 * value is @text; else "@fallback_option @text (@fallback_origin)".
 */
static void allow_list_find(const struct jr_config *cfg,
			    const struct allow_list *a, const char *only,
			    const char *text, const char *fallback_option,
			    const char *fallback_origin, char *what,
			    size_t size)
{
	for (size_t j = 0; j < a->n; j++)
		if ((!only || strcmp(a->option[j], only) == 0) &&
		    strcmp(a->value[j], text) == 0) {
			snprintf(what, size, "%s %s (%s)", a->option[j], text,
				 origin_of(cfg, a->index[j]));
			return;
		}
	snprintf(what, size, "%s %s (%s)", fallback_option, text,
		 fallback_origin);
}

/* Every allow-like option of @cfg, with where it came from, into @a. */
static int allow_list_load(const struct jr_config *cfg, struct allow_list *a)
{
	a->option = calloc((size_t)cfg->argc + 1, sizeof(*a->option));
	a->value = calloc((size_t)cfg->argc + 1, sizeof(*a->value));
	a->index = calloc((size_t)cfg->argc + 1, sizeof(*a->index));
	if (!a->option || !a->value || !a->index)
		return -ENOMEM;
	scan_options(cfg->argc, cfg->argv, allow_list_one, a);
	return 0;
}

static void allow_list_free(struct allow_list *a)
{
	free(a->option);
	free(a->value);
	free(a->index);
}

int jr_config_check_allow(const struct jr_config *cfg,
			  const struct jr_policy *p, struct jr_err *err)
{
	_cleanup_(allow_list_free) struct allow_list a = { 0 };

	if (!cfg->managed.deny.n)
		return 0;
	if (allow_list_load(cfg, &a) < 0)
		return jr_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n; i++) {
		char what[512];

		allow_list_find(cfg, &a, NULL, p->entries[i].text, "allow",
				"an --allow-file", what, sizeof(what));
		if (jr_managed_check_entry(&cfg->managed, &p->entries[i], what,
					   err) < 0)
			return -EPERM;
	}
	return 0;
}

int jr_config_check_lanes(const struct jr_config *cfg,
			  const struct jr_lanes *lanes, struct jr_err *err)
{
	_cleanup_(allow_list_free) struct allow_list a = { 0 };

	if (!cfg->managed.deny.n)
		return 0;
	if (allow_list_load(cfg, &a) < 0)
		return jr_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < lanes->n_lane; i++) {
		const struct jr_lane *l = &lanes->lane[i];
		char what[512];

		/* A NAME:PORT lane is an allow entry: jr_config_check_allow()
		 * and the relay's decision-time check judge it. */
		if (!l->host)
			continue;
		allow_list_find(cfg, &a, "lane", l->text, "lane",
				"command line", what, sizeof(what));
		if (jr_managed_check_address(&cfg->managed,
					     (const struct sockaddr *)&l->addr,
					     l->port, what, err) < 0)
			return -EPERM;
	}
	return 0;
}

/* A value as a file line would need it: quoted when it must be. */
static void print_value(FILE *out, const char *v)
{
	size_t n = strlen(v);
	bool quote = n == 0 || jr_conf_is_space(v[0]) ||
		     jr_conf_is_space(v[n - 1]) || v[0] == '"' || v[0] == '#' ||
		     strstr(v, " #") || strstr(v, "\t#");

	fprintf(out, quote ? " \"%s\"" : " %s", v);
}

/* Paths that must exist when a run starts (--hide of a missing path is
 * fine: there is nothing to hide). */
static const char *const existing_paths[] = {
	"rw", "ro", "tmpfs", "workdir", "allow-file", "expose", "upstream-ca",
};
/* Files a run creates: their directory must exist. */
static const char *const created_paths[] = { "log", "json", "learn",
					     "control" };

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

/*
 * missing_path() - is the path @value of option @name absent (for a file
 * a run creates: its directory)? Relative paths are the runner's, against
 * the current directory, as jailrun resolves them.
 * Return: true when absent, with what is absent in @what.
 * A path with a '"' is not repeated in @what: the printed line would
 * no longer parse (a quoted value runs to the last '"' of its line).
 */
static bool missing_path(const char *name, const char *value, char *what,
			 size_t size)
{
	struct stat st;
	const char *slash;

	if (in_list(name, existing_paths, ARRAY_SIZE(existing_paths))) {
		if (stat(value, &st) == 0 || errno != ENOENT)
			return false;
		snprintf(what, size, "%s does not exist",
			 strchr(value, '"') ? "the path" : value);
		return true;
	}
	if (!in_list(name, created_paths, ARRAY_SIZE(created_paths)) ||
	    strcmp(value, "-") == 0)
		return false;
	slash = strrchr(value, '/');
	if (!slash || slash == value)
		return false; /* the current directory or / */
	snprintf(what, size, "%.*s", (int)(slash - value), value);
	if (stat(what, &st) == 0 || errno != ENOENT)
		return false;
	if (strchr(value, '"'))
		snprintf(what, size, "its directory does not exist");
	else
		snprintf(what, size, "its directory %.*s does not exist",
			 (int)(slash - value), value);
	return true;
}

/* A missing --rw/--tmpfs below the caller's home, which a run creates
 * (homedir.c) rather than refuses. */
static bool created_at_start(const char *name, const char *value)
{
	char cwd[PATH_MAX], norm[PATH_MAX], home[PATH_MAX];
	const char *h = jr_caller_home();
	struct stat st;

	if (strcmp(name, "rw") != 0 && strcmp(name, "tmpfs") != 0)
		return false;
	if (!h || lstat(value, &st) == 0 || errno != ENOENT ||
	    !getcwd(cwd, sizeof(cwd)) ||
	    jr_fs_normalize(cwd, value, norm, sizeof(norm)) < 0 ||
	    jr_fs_normalize("/", h, home, sizeof(home)) < 0)
		return false;
	return jr_fs_below_home(value, norm, home) != NULL;
}

/* One printed line's end: the origin, a note, MISSING when it is. */
static void print_comment(FILE *out, const char *name, const char *value,
			  const char *origin, const char *note, size_t *missing)
{
	char what[4200];

	fprintf(out, "\t# %s", origin);
	if (note)
		fprintf(out, " (%s)", note);
	if (value && created_at_start(name, value))
		fprintf(out, "; created (0700) when the run starts");
	else if (value && missing_path(name, value, what, sizeof(what))) {
		fprintf(out, "; MISSING: %s", what);
		(*missing)++;
	}
	fputc('\n', out);
}

struct printer {
	const struct jr_config *cfg;
	const char *name;
	FILE *out;
	size_t missing;
};

static int print_one(void *ctx, const struct option *o, const char *value,
		     int index)
{
	struct printer *pr = ctx;

	if (strcmp(o->name, pr->name) != 0)
		return 0;
	fputs(o->name, pr->out);
	if (value)
		print_value(pr->out, value);
	print_comment(pr->out, o->name, value, origin_of(pr->cfg, index), NULL,
		      &pr->missing);
	return 0;
}

/* The value runner-decided defaults have (@eff), or NULL; @note is what
 * its comment adds. */
static const char *effective_default(const struct jr_config_effective *eff,
				     const char *name, const char **note)
{
	*note = NULL;
	if (!eff)
		return NULL;
	if (strcmp(name, "user") == 0) {
		*note = eff->user_note;
		return eff->user;
	}
	if (strcmp(name, "workdir") == 0) {
		*note = "the current directory";
		return eff->workdir;
	}
	return NULL;
}

size_t jr_config_print(const struct jr_config *cfg,
		       const struct jr_options *opts,
		       const struct jr_config_effective *eff, FILE *out)
{
	const struct jr_managed *m = &cfg->managed;
	size_t missing = 0;

	fputs("# jailrun: the effective configuration (jailrun.conf(5))\n",
	      out);
	for (const struct option *o = jr_options_long_table(); o->name; o++) {
		struct lookup l = { .name = o->name, .index = -1 };
		const char *v, *note = NULL;
		bool skip = false;
		char buf[64];

		for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
			skip = skip || strcmp(o->name, refused[i].name) == 0;
		if (skip)
			continue;
		if (is_list_option(o->name)) {
			struct printer pr = { cfg, o->name, out, 0 };

			scan_options(cfg->argc, cfg->argv, print_one, &pr);
			missing += pr.missing;
			continue;
		}
		scan_options(cfg->argc, cfg->argv, lookup_one, &l);
		v = known_value(opts, o->name, buf, sizeof(buf));
		if (!v)
			v = l.value;
		if (v && strcmp(o->name, "ask") == 0 && opts->ask_tty)
			v = "tty"; /* the flag's word (--ask tty) */
		if (!v)
			v = effective_default(eff, o->name, &note);
		else if (strcmp(o->name, "user") == 0 && eff)
			note = eff->user_note;
		if (!v)
			continue;
		fputs(o->name, out);
		print_value(out, v);
		if (l.index < 0 && strcmp(o->name, "net") == 0 &&
		    opts->net == JR_NET_ALLOWLIST)
			note = "allow entries given";
		print_comment(out, o->name, v, origin_of(cfg, l.index), note,
			      &missing);
	}
	for (size_t i = 0; i < m->deny.n; i++)
		fprintf(out, "deny %s\t# %s (managed policy)\n",
			m->deny.entries[i].text, m->deny_origin[i]);
	for (size_t i = 0; i < m->n_req; i++)
		fprintf(out, "require %s %s\t# %s (managed policy)\n",
			m->req[i].option, m->req[i].text, m->req[i].origin);
	return missing;
}
