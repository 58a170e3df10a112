#!/bin/sh
# cnpa's installer for the release tarballs, for a VM without Go:
#
#   sudo sh install.sh               # the tarball beside this script for this machine
#   sudo sh install.sh TARBALL       # that one
#   sudo sh install.sh --uninstall   # remove what it installed
#
# It refuses a tarball for another architecture and one that does not
# match its .sha256 file, each with the fix, before anything is written;
# then puts cnpa, its shell completions and man pages under $PREFIX
# (/usr/local). Nothing starts: the lab's service is cnpa step 4's.
set -eu

prefix=${PREFIX:-/usr/local}
files="bin/cnpa share/bash-completion/completions/cnpa share/zsh/site-functions/_cnpa
share/fish/vendor_completions.d/cnpa.fish share/man/man1/cnpa.1.gz share/man/ja/man1/cnpa.1.gz"

# say EN JA: one line to stderr, in Japanese when the locale says so.
say() {
	case "${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}" in
	ja*) printf 'cnpa install: %s\n' "$2" >&2 ;;
	*) printf 'cnpa install: %s\n' "$1" >&2 ;;
	esac
}
die() {
	say "$1" "$2"
	exit 1
}

if [ ! -w "$prefix" ] && [ ! -w "$(dirname "$prefix")" ]; then
	die "cannot write to $prefix: run it as root (sudo sh $0)" \
		"$prefix に書き込めません: rootで実行してください（sudo sh $0）"
fi

if [ "${1:-}" = --uninstall ]; then
	for f in $files; do
		rm -f "$prefix/$f"
	done
	say "removed cnpa from $prefix; your lab's files (the evidence dir, your unit) are untouched" \
		"$prefix からcnpaを削除しました。ラボのファイル（JSONファイルのディレクトリ、自分のunit）はそのままです"
	exit 0
fi

case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "this machine is $(uname -m): cnpa is built for amd64 and arm64 only" \
	"このマシンは$(uname -m)です: cnpaはamd64とarm64だけのためにビルドされています" ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
	tarball=$1
else
	tarball=
	for t in "$here"/cnpa_*_linux_"$arch".tar.gz; do
		[ -f "$t" ] && tarball=$t
	done
	if [ -z "$tarball" ]; then
		for t in "$here"/cnpa_*_linux_*.tar.gz; do
			[ -f "$t" ] && tarball=$t
		done
	fi
	[ -n "$tarball" ] || die "no cnpa_VERSION_linux_$arch.tar.gz beside $0: copy it from the release into $here" \
		"$0 の隣にcnpa_VERSION_linux_$arch.tar.gzがありません: リリースから $here にコピーしてください"
fi
name=$(basename "$tarball")
case $name in
cnpa_*_linux_amd64.tar.gz) tarch=amd64 ;;
cnpa_*_linux_arm64.tar.gz) tarch=arm64 ;;
*) die "$name is not a cnpa release tarball (cnpa_VERSION_linux_ARCH.tar.gz)" \
	"$name はcnpaのリリースのtarball（cnpa_VERSION_linux_ARCH.tar.gz）ではありません" ;;
esac
version=${name#cnpa_}
version=${version%_linux_*}
if [ "$tarch" != "$arch" ]; then
	die "$name is for $tarch, this machine is $arch: use cnpa_${version}_linux_$arch.tar.gz from the same release" \
		"$name は$tarch用で、このマシンは$arch用です: 同じリリースのcnpa_${version}_linux_$arch.tar.gzを使ってください"
fi
[ -f "$tarball" ] || die "$tarball: no such file" "$tarball: ファイルがありません"
[ -f "$tarball.sha256" ] || die "no $name.sha256 beside $name: copy it from the release too, then run this again" \
	"$name の隣に$name.sha256がありません: それもリリースからコピーして、もう一度実行してください"
want=$(cut -d ' ' -f 1 <"$tarball.sha256")
got=$(sha256sum "$tarball" | cut -d ' ' -f 1)
if [ "$want" != "$got" ]; then
	die "$name does not match $name.sha256 (sha256 $got, want $want): the copy is damaged or not the release's; copy it again" \
		"$name が$name.sha256と一致しません（sha256 $got、正しくは$want）: コピーが壊れているか、リリースのものではありません。もう一度コピーしてください"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
src=$tmp/cnpa_${version}_linux_$arch
install -D -m 0755 "$src/cnpa" "$prefix/bin/cnpa"
install -D -m 0644 "$src/completions/cnpa.bash" "$prefix/share/bash-completion/completions/cnpa"
install -D -m 0644 "$src/completions/_cnpa" "$prefix/share/zsh/site-functions/_cnpa"
install -D -m 0644 "$src/completions/cnpa.fish" "$prefix/share/fish/vendor_completions.d/cnpa.fish"
install -D -m 0644 "$src/man/man1/cnpa.1.gz" "$prefix/share/man/man1/cnpa.1.gz"
install -D -m 0644 "$src/man/ja/man1/cnpa.1.gz" "$prefix/share/man/ja/man1/cnpa.1.gz"
"$prefix/bin/cnpa" version
say "installed $prefix/bin/cnpa; next: cnpa doctor" \
	"$prefix/bin/cnpa をインストールしました。次は: cnpa doctor"
