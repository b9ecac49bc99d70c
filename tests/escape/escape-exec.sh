#!/bin/bash
# The escape suite (escape.sh) with every probe run in a live sandbox
# through `jailrun exec` instead of a run: an exec'd command must meet the
# same walls (issue 24: "the escape suite runs through exec too").
export ESCAPE_VIA=exec
exec bash "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/escape/escape.sh" "$@"
