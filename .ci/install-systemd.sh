#!/usr/bin/env bash
# Installs what the systemd system tests (test/nspawn) need: systemd-nspawn
# (package systemd-container), debootstrap, nsenter (util-linux) and the
# Debian archive keyring debootstrap verifies bookworm with.
#
# Idempotent: installs only what is missing, and runs `apt-get update` only
# when a plain install fails (a fresh image with no package lists), so a warm
# machine pays nothing.
set -euo pipefail

# debootstrap and friends live in /usr/sbin, which a non-root PATH may lack.
have() {
	command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]] || [[ -x "/sbin/$1" ]]
}

missing=()
have systemd-nspawn || missing+=(systemd-container)
have debootstrap || missing+=(debootstrap)
have nsenter || missing+=(util-linux)
[[ -e /usr/share/keyrings/debian-archive-keyring.gpg ]] || missing+=(debian-archive-keyring)

if ((${#missing[@]} == 0)); then
	echo "install-systemd: systemd-nspawn, debootstrap and nsenter already present"
	exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "install-systemd: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-systemd: installing ${missing[*]}"
if ! "${sudo[@]}" apt-get install -y "${missing[@]}"; then
	echo "install-systemd: install failed; refreshing package lists and retrying"
	"${sudo[@]}" apt-get update
	"${sudo[@]}" apt-get install -y "${missing[@]}"
fi

for tool in systemd-nspawn debootstrap nsenter; do
	if ! have "$tool"; then
		echo "install-systemd: $tool still missing after install" >&2
		exit 1
	fi
done
echo "install-systemd: done"
