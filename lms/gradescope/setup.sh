#!/usr/bin/env bash
# cnpa's Gradescope autograder, setup: run once by Gradescope when it
# builds the autograder's image. The zip holds cnpa itself (a static
# linux/amd64 build, see README.md), so nothing is downloaded here.
set -euo pipefail
root=${CNPA_AUTOGRADER_ROOT:-/autograder}
install -m 0755 "$root/source/cnpa" /usr/local/bin/cnpa
cnpa version
