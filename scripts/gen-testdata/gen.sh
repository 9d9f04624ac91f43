#!/usr/bin/env bash
# Regenerates the real-crash corpus in testdata/ (see docs/testdata.md).
#
#   scripts/gen-testdata/gen.sh            # all architectures
#   ARCHES="arm64 arm" scripts/gen-testdata/gen.sh
#   CONVERT_ONLY=1 scripts/gen-testdata/gen.sh   # only reconvert the cores of the last run
#   EXTRA_ONLY=1 EXTRA_CASES=arm-apcs scripts/gen-testdata/gen.sh   # only the extra programs
#
# Needs Debian (bookworm) and root for the package install; CI does not run
# it. It compiles src/ for each architecture, crashes every case natively
# (kernel core), under gdb (gdb's generate-core-file) or under qemu-user
# (qemu's own core), converts the cores with cmd/core2md, writes .sym files
# with Breakpad's dump_syms, and records the oracles: gdb's backtrace of the
# core and Breakpad's minidump_stackwalk output of the converted dump.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/scripts/gen-testdata
OUT=${OUT:-$ROOT/testdata}
ARCHES=${ARCHES:-"amd64 x86 arm64 arm"}
ORACLE_DIR=${ORACLE_DIR:-/tmp/oracle}
BREAKPAD=$ORACLE_DIR/package/bin/linux-x64
# A fixed work directory keeps the module paths recorded in the dumps stable.
WORK=${WORK:-/tmp/gen-testdata}
# Cases written by gdb (generate-core-file) instead of the kernel, for native architectures.
GDB_CASES=${GDB_CASES:-"amd64-threads amd64-cpp x86-libc"}
# Cores kept (zstd-compressed) for the converter tests.
KEEP_CORES=${KEEP_CORES:-"amd64-fp amd64-threads x86-threads x86-libc arm64-threads arm64-fp arm-fp arm-threads"}
STACK_LIMIT=${STACK_LIMIT:-65536}

log() { echo "gen-testdata: $*" >&2; }

setup() {
	local need=()
	for tool in gcc:gcc g++:g++ aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu \
		arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf arm-linux-gnueabihf-g++:g++-arm-linux-gnueabihf \
		i686-linux-gnu-gcc:gcc-i686-linux-gnu i686-linux-gnu-g++:g++-i686-linux-gnu \
		qemu-aarch64:qemu-user qemu-arm:qemu-user gdb-multiarch:gdb-multiarch gdb:gdb zstd:zstd npm:npm go:golang; do
		command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
	done
	if ((${#need[@]})); then
		log "installing ${need[*]}"
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
	fi
	if [ ! -x "$BREAKPAD/minidump_stackwalk" ]; then
		log "fetching Breakpad's binaries (npm pack minidump@0.26.0) into $ORACLE_DIR"
		mkdir -p "$ORACLE_DIR"
		(cd "$ORACLE_DIR" && npm pack minidump@0.26.0 >/dev/null && tar xzf minidump-0.26.0.tgz)
	fi
}

# toolchain ARCH: sets CC, CXX, RUN (how to execute) and FLAGS.
toolchain() {
	case $1 in
	amd64) CC=gcc CXX=g++ RUN="" FLAGS="" ;;
	x86) CC=i686-linux-gnu-gcc CXX=i686-linux-gnu-g++ RUN="" FLAGS="" ;;
	arm64) CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ RUN=qemu-aarch64 FLAGS="" ;;
	arm) CC=arm-linux-gnueabihf-gcc CXX=arm-linux-gnueabihf-g++ RUN=qemu-arm FLAGS="-mthumb" ;;
	esac
}

cases() {
	echo fp nofp O0 recursion libc abort threads cpp
	[ "$1" = arm ] && echo armmode
	return 0
}

build() {
	local arch=$1 dir=$WORK/$arch
	mkdir -p "$dir"
	toolchain "$arch"
	local common="-g -fdebug-prefix-map=$HERE/src=src -Wl,--build-id"
	local src=$HERE/src
	(
		cd "$dir"
		$CC $common $FLAGS -O2 -c "$src/main.c"
		$CC $common $FLAGS -O2 -fno-omit-frame-pointer -c "$src/case_fp.c"
		$CC $common $FLAGS -O2 -fomit-frame-pointer -c "$src/case_nofp.c"
		$CC $common $FLAGS -O0 -c "$src/case_O0.c"
		for c in recursion libc abort threads; do $CC $common $FLAGS -O2 -c "$src/case_$c.c"; done
		$CXX $common $FLAGS -O2 -c "$src/case_cpp.cc"
		if [ "$arch" = arm ]; then $CC $common -marm -O2 -fno-omit-frame-pointer -c "$src/case_arm.c"; fi
		$CXX $common -static -pthread -o crashdemo ./*.o
	)
}

# crash ARCH CASE: leaves $WORK/ARCH/CASE/core and prints the producer.
crash() {
	local arch=$1 c=$2 dir=$WORK/$1/$2
	rm -rf "$dir" && mkdir -p "$dir"
	toolchain "$arch"
	local producer
	(
		cd "$dir"
		ulimit -c unlimited
		if [ -z "$RUN" ] && [[ " $GDB_CASES " == *" $arch-$c "* ]]; then
			gdb -batch -nx -ex run -ex "generate-core-file core" --args ../crashdemo "$c" >gdb-run.log 2>&1 || true
		elif [ -z "$RUN" ]; then
			../crashdemo "$c" >run.log 2>&1 || true
		else
			$RUN ../crashdemo "$c" >run.log 2>&1 || true
			rm -f core # qemu itself, dumped by the host kernel
			mv qemu_crashdemo_*.core core
		fi
	)
	[ -s "$dir/core" ] || { log "no core for $arch-$c (core_pattern: $(cat /proc/sys/kernel/core_pattern))"; return 1; }
	if [ -n "$RUN" ]; then producer=qemu; elif [[ " $GDB_CASES " == *" $arch-$c "* ]]; then producer=gdb; else producer=kernel; fi
	echo "$producer"
}

symbols() {
	local arch=$1 bin=$WORK/$1/crashdemo
	"$BREAKPAD/dump_syms" "$bin" >"$WORK/$arch/crashdemo.sym" 2>/dev/null
	local id
	id=$(head -1 "$WORK/$arch/crashdemo.sym" | awk '{print $4}')
	mkdir -p "$OUT/symbols/crashdemo/$id"
	cp "$WORK/$arch/crashdemo.sym" "$OUT/symbols/crashdemo/$id/crashdemo.sym"
}

oracles() {
	local arch=$1 c=$2 name=$1-$2 dir=$WORK/$1/$2
	local gdbargs=(-batch -nx -iex "set debuginfod enabled off" "$WORK/$arch/crashdemo" "$dir/core")
	gdb-multiarch "${gdbargs[@]}" -ex "thread apply all bt" 2>/dev/null | sed "s|$WORK|WORK|g" >"$OUT/oracle/$name.gdb.txt"
	gdb-multiarch "${gdbargs[@]}" -x "$HERE/gdb_frames.py" 2>/dev/null | grep -E '^(#|thread|reg|frame|library) ' >"$OUT/oracle/$name.frames.txt"
	breakpad_oracles "$name"
}

breakpad_oracles() {
	local name=$1
	"$BREAKPAD/minidump_stackwalk" -m "$OUT/dumps/$name.dmp" "$OUT/symbols" >"$OUT/oracle/$name.breakpad.machine.txt" 2>/dev/null
	"$BREAKPAD/minidump_stackwalk" "$OUT/dumps/$name.dmp" "$OUT/symbols" >"$OUT/oracle/$name.breakpad.txt" 2>/dev/null
}

# convert ARCH CASE PRODUCER: the dump of $WORK/ARCH/CASE/core.
convert() {
	local arch=$1 c=$2 producer=$3 modarg=()
	# qemu-user cores have no NT_FILE: name the program on the command line.
	[ "$producer" = qemu ] && modarg=(--module "$WORK/$arch/crashdemo")
	"$WORK/core2md" --stack-limit "$STACK_LIMIT" "${modarg[@]}" "$WORK/$arch/$c/core" "$OUT/dumps/$arch-$c.dmp"
}

# convert_only: CONVERT_ONLY=1 reruns only the conversion of the cores and
# programs the last full run left in $WORK (after a change to core2md), with
# the producers of $OUT/cases.txt, and Breakpad's oracles of the new dumps.
# Cores, programs, symbols and gdb's oracles stay as they are.
convert_only() {
	[ -x "$BREAKPAD/minidump_stackwalk" ] || { log "no $BREAKPAD/minidump_stackwalk"; return 1; }
	(cd "$ROOT" && go build -o "$WORK/core2md" ./cmd/core2md)
	local name arch c producer threads
	while read -r name arch c producer threads; do
		[[ "$name" == "#"* || " $ARCHES " != *" $arch "* ]] && continue
		[ -s "$WORK/$arch/$c/core" ] || { log "no core $WORK/$arch/$c/core"; return 1; }
		convert "$arch" "$c" "$producer"
		breakpad_oracles "$name"
		log "$name: reconverted"
	done <"$OUT/cases.txt"
}

# dynamic_case: a dynamically linked PIE build of the program, crashed
# natively in the libc case. Only its core and gdb oracle are kept (listed in
# cores/extra.txt), for the converter tests of NT_FILE modules: the PIE, ld.so,
# libc.so.6 and the vDSO, with build ids read from the core's memory.
dynamic_case() {
	local dir=$WORK/amd64-dynamic name=amd64-dynamic
	rm -rf "$dir" && mkdir -p "$dir"
	(
		cd "$dir"
		local flags="-g -fdebug-prefix-map=$HERE/src=src -O2 -fPIE"
		for c in main case_fp case_nofp case_O0 case_recursion case_libc case_abort case_threads; do
			gcc $flags -c "$HERE/src/$c.c"
		done
		g++ $flags -c "$HERE/src/case_cpp.cc"
		g++ -pie -pthread -Wl,--build-id -o crashdemo-dyn ./*.o
		ulimit -c unlimited
		./crashdemo-dyn libc >run.log 2>&1 || true
	)
	[ -s "$dir/core" ] || { log "no core for $name"; return 1; }
	"$BREAKPAD/dump_syms" "$dir/crashdemo-dyn" >"$dir/crashdemo-dyn.sym" 2>/dev/null
	local id
	id=$(head -1 "$dir/crashdemo-dyn.sym" | awk '{print $4}')
	mkdir -p "$OUT/symbols/crashdemo-dyn/$id"
	cp "$dir/crashdemo-dyn.sym" "$OUT/symbols/crashdemo-dyn/$id/"
	local gdbargs=(-batch -nx -iex "set debuginfod enabled off" "$dir/crashdemo-dyn" "$dir/core")
	gdb-multiarch "${gdbargs[@]}" -ex "thread apply all bt" 2>/dev/null | sed "s|$WORK|WORK|g" >"$OUT/oracle/$name.gdb.txt"
	gdb-multiarch "${gdbargs[@]}" -x "$HERE/gdb_frames.py" 2>/dev/null | grep -E '^(#|thread|reg|frame|library) ' >"$OUT/oracle/$name.frames.txt"
	zstd -q -f -19 -T1 "$dir/core" -o "$OUT/cores/$name.core.zst"
	printf '# name arch case producer threads (cores without a dump in dumps/)\n%s amd64 libc kernel %s\n' \
		"$name" "$(grep -c '^thread ' "$OUT/oracle/$name.frames.txt")" >"$OUT/cores/extra.txt"
	log "$name: kernel core"
}

# Extra cases: programs of their own (src/extra/CASE.c, built as CASEdemo),
# for code whose flags must not change crashdemo and so the existing dumps.
EXTRA_CASES=${EXTRA_CASES:-"arm-apcs arm-assert amd64-leaf x86-leaf amd64-signal x86-signal amd64-realign arm-signal arm-rtsignal arm64-signal amd64-large x86-large arm-large arm64-large amd64-throw x86-throw arm-throw arm64-throw amd64-strfn x86-strfn arm-strfn arm64-strfn amd64-noreturn x86-noreturn arm-noreturn arm64-noreturn amd64-overflow x86-overflow arm-overflow arm64-overflow"}
SHAPES_BUILT=""

# extra_build ARCH CASE: compiles src/extra/CASE.c in the current directory.
extra_build() {
	local common="-g -fdebug-prefix-map=$HERE/src=src"
	case $1-$2 in
	arm-apcs)
		# APCS frames ({fp, ip, lr, pc}, fp = ip - 4) without CFI: the
		# object's .debug_frame is removed, so dump_syms writes no STACK
		# CFI for these functions and gdb reads their prologues.
		$CC $common -marm -mapcs-frame -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -c "$HERE/src/extra/apcs.c"
		"${CC%gcc}objcopy" --remove-section .debug_frame --remove-section .rel.debug_frame apcs.o
		;;
	amd64-leaf | x86-leaf)
		# Frame pointers except in leaves, no CFI for these functions
		# (no .eh_frame; .debug_frame removed): frame 0 is a frameless
		# leaf whose frame-pointer register holds its caller's record.
		$CC $common -O2 -fno-omit-frame-pointer -momit-leaf-frame-pointer -fno-optimize-sibling-calls \
			-fno-asynchronous-unwind-tables -fno-unwind-tables -c "$HERE/src/extra/leaf.c"
		objcopy --remove-section .debug_frame --remove-section .rela.debug_frame --remove-section .rel.debug_frame leaf.o
		;;
	amd64-signal | x86-signal)
		$CC $common -O2 -c "$HERE/src/extra/signal.c"
		;;
	arm-signal | arm64-signal)
		# The program also writes libgcc's backtrace from inside the handler
		# (the oracle past the signal frame: gdb fails there on qemu's
		# frames); on arm the unwinder needs the EHABI tables.
		$CC $common $FLAGS -O2 -funwind-tables -DUNWIND_ORACLE -o signal.o -c "$HERE/src/extra/signal.c"
		;;
	arm-rtsignal)
		# ARM mode, SA_SIGINFO: an rt_sigframe and __default_rt_sa_restorer.
		$CC $common -marm -O2 -funwind-tables -DUNWIND_ORACLE -DUSE_SIGINFO -o signal.o -c "$HERE/src/extra/signal.c"
		;;
	amd64-realign)
		# A VLA beside an over-aligned local: GCC realigns through DRAP
		# (r10), whose CFA dump_syms cannot write.
		$CC $common -O2 -c "$HERE/src/extra/realign.c"
		;;
	*-large)
		# Frames of hundreds of bytes (alloca, VLA, fixed buffer) without
		# frame pointers or unwind tables; -g still writes .debug_frame,
		# which gdb reads and extra_case removes from dump_syms's copy.
		$CC $common $FLAGS -O2 -fomit-frame-pointer -fno-optimize-sibling-calls \
			-fno-asynchronous-unwind-tables -fno-unwind-tables -c "$HERE/src/extra/large.c"
		;;
	arm-assert)
		# A failed assert() through glibc code without unwind entries;
		# the walks with the stripped program (--use-local-debuginfo)
		# must equal gdb's.
		$CC $common -O2 -c "$HERE/src/extra/assert.c"
		;;
	*-throw | *-strfn | *-noreturn | *-overflow)
		# shapesdemo, one program for the four cases (argv[1] picks):
		# throw.cc, linked by g++; noreturn.c in source order, with no
		# padding between functions and no cold sections, so a call that
		# ends a function returns to the next one's start. On arm, where
		# gdb loses these stacks under qemu-user, the program writes
		# libgcc's backtrace (the EHABI tables: -funwind-tables).
		local oracle=""
		[ "$1" = arm ] && oracle="-funwind-tables -DUNWIND_ORACLE"
		$CC $common $FLAGS -O2 $oracle -c "$HERE/src/extra/shapes.c"
		$CXX $common $FLAGS -O2 $oracle -c "$HERE/src/extra/throw.cc"
		$CC $common $FLAGS -O2 $oracle -c "$HERE/src/extra/strfn.c"
		$CC $common $FLAGS -O2 $oracle -falign-functions=1 -fno-reorder-functions \
			-fno-reorder-blocks-and-partition -c "$HERE/src/extra/noreturn.c"
		$CC $common $FLAGS -O2 $oracle -c "$HERE/src/extra/overflow.c"
		link="$CXX -pthread"
		;;
	*) log "unknown extra case $1-$2"; return 1 ;;
	esac
}

# extra_case ARCH CASE: builds CASEdemo, crashes it, and writes its dump,
# symbols and oracles as for crashdemo's cases, and its cases.txt line.
extra_case() {
	local arch=$1 c=$2 name=$1-$2 dir=$WORK/$1/$2 prog=$2demo producer
	# The cases of shapesdemo share one build ($WORK/ARCH/shapes, made
	# once a run) and pass the case as argv[1].
	local bdir=$dir run=./$2demo arg=()
	case $c in throw | strfn | noreturn | overflow)
		prog=shapesdemo bdir=$WORK/$arch/shapes run=$WORK/$arch/shapes/shapesdemo arg=("$c") ;;
	esac
	rm -rf "$dir" && mkdir -p "$dir"
	toolchain "$arch"
	if [ "$bdir" = "$dir" ] || [[ " $SHAPES_BUILT " != *" $arch "* ]]; then
		[ "$bdir" = "$dir" ] || { rm -rf "$bdir" && mkdir -p "$bdir"; }
		(
			cd "$bdir"
			local link=$CC
			extra_build "$arch" "$c"
			$link -static -Wl,--build-id -o "$prog" ./*.o
		)
		[ "$bdir" = "$dir" ] || SHAPES_BUILT+=" $arch"
	fi
	(
		cd "$dir"
		ulimit -c unlimited
		$RUN "$run" "${arg[@]}" >run.log 2>&1 || true
		if [ -n "$RUN" ]; then
			rm -f core
			mv qemu_"$prog"_*.core core
		fi
	)
	[ -s "$dir/core" ] || { log "no core for $name"; return 1; }
	producer=kernel
	[ -n "$RUN" ] && producer=qemu
	local symin=$bdir/$prog
	if [ "$c" = large ]; then
		# No STACK CFI for large.c's functions in the .sym: dump_syms
		# reads a copy without .debug_frame (same build id; libc's CFI is
		# in .eh_frame), while gdb, the oracle, reads the program's.
		mkdir -p "$dir/nocfi"
		"${CC%gcc}objcopy" --remove-section .debug_frame "$dir/$prog" "$dir/nocfi/$prog"
		symin=$dir/nocfi/$prog
	fi
	"$BREAKPAD/dump_syms" "$symin" >"$dir/$prog.sym" 2>/dev/null
	local id
	id=$(head -1 "$dir/$prog.sym" | awk '{print $4}')
	mkdir -p "$OUT/symbols/$prog/$id"
	cp "$dir/$prog.sym" "$OUT/symbols/$prog/$id/$prog.sym"
	local modarg=()
	if [ "$producer" = qemu ]; then
		modarg=(--module "$bdir/$prog")
		# As for crashdemo: the converter tests need the program (stripped).
		mkdir -p "$OUT/cores"
		"${CC%gcc}strip" -o "$dir/$prog.stripped" "$bdir/$prog"
		zstd -q -f -19 -T1 "$dir/$prog.stripped" -o "$OUT/cores/$arch-$prog.zst"
		chmod 644 "$OUT/cores/$arch-$prog.zst"
	fi
	# The overflowing thread's whole stack (128 KiB) goes into the dump,
	# so that the walk can reach its start as gdb's does.
	local limit=$STACK_LIMIT
	[ "$c" = overflow ] && limit=262144
	"$WORK/core2md" --stack-limit "$limit" "${modarg[@]}" "$dir/core" "$OUT/dumps/$name.dmp"
	local gdbargs=(-batch -nx -iex "set debuginfod enabled off" "$bdir/$prog" "$dir/core") bt="thread apply all bt"
	# gdb on qemu-user's signal frames: past the non-rt sigframe of arm it
	# reads garbage (it tells the layouts apart by the uc_flags the kernel
	# writes, 0x5ac3c35a, which qemu leaves 0); on arm64 it hangs past
	# frame 0. Its frames stop there; libgcc's backtrace (unwind.txt) is
	# the oracle for the rest.
	local max=0
	# Under qemu-arm gdb also loses shapesdemo's stacks: past glibc's
	# strlen (a Thumb-2 leaf that pushed r4, r5: frame 2 is junk) and
	# past libgcc's _Unwind_RaiseException wrapper (its caller __cxa_throw
	# is skipped); libgcc's backtrace from the program is the oracle there.
	case $name in
	arm-signal) max=3 ;;
	arm64-signal) max=1 ;;
	arm-strfn) max=2 ;;
	arm-throw) max=12 ;;
	esac
	if ((max)); then
		gdbargs=(-iex "set print frame-arguments none" "${gdbargs[@]}")
		bt="bt $max"
	fi
	gdb-multiarch "${gdbargs[@]}" -ex "$bt" 2>/dev/null | sed "s|$WORK|WORK|g" >"$OUT/oracle/$name.gdb.txt"
	GDB_FRAMES_MAX=$max gdb-multiarch "${gdbargs[@]}" -x "$HERE/gdb_frames.py" 2>/dev/null | grep -E '^(#|thread|reg|frame|library) ' >"$OUT/oracle/$name.frames.txt"
	if grep -q '^# libgcc _Unwind_Backtrace' "$dir/run.log"; then
		grep -E '^(# libgcc|thread|frame) ' "$dir/run.log" >"$OUT/oracle/$name.unwind.txt"
	fi
	breakpad_oracles "$name"
	local threads manifest=$OUT/cases.txt
	threads=$(grep -c '^thread ' "$OUT/oracle/$name.frames.txt")
	sed -i "/^$name /d" "$manifest"
	echo "$name $arch $c $producer $threads" >>"$manifest"
	sort -o "$manifest" "$manifest"
	log "$name: $producer core, $threads threads"
}

# extra_cases: EXTRA_CASES (arch-case), for the architectures of ARCHES.
extra_cases() {
	local ac
	for ac in $EXTRA_CASES; do
		[[ " $ARCHES " == *" ${ac%%-*} "* ]] && extra_case "${ac%%-*}" "${ac#*-}"
	done
	return 0
}

main() {
	if [ -n "${EXTRA_ONLY:-}" ]; then
		# EXTRA_ONLY=1 makes only the extra cases: crashdemo's dumps stay.
		setup
		(cd "$ROOT" && go build -o "$WORK/core2md" ./cmd/core2md)
		mkdir -p "$OUT/dumps" "$OUT/symbols" "$OUT/oracle"
		extra_cases
		return
	fi
	if [ -n "${CONVERT_ONLY:-}" ]; then
		convert_only
		return
	fi
	setup
	log "work directory $WORK"
	(cd "$ROOT" && go build -o "$WORK/core2md" ./cmd/core2md)
	mkdir -p "$OUT/dumps" "$OUT/symbols" "$OUT/oracle" "$OUT/cores"
	local manifest=$OUT/cases.txt
	[ -f "$manifest" ] || printf '# name arch case producer threads\n' >"$manifest"
	# DYNAMIC_ONLY=1 makes only the amd64-dynamic core (cores/extra.txt).
	[ -n "${DYNAMIC_ONLY:-}" ] && ARCHES=""
	for arch in $ARCHES; do
		log "building $arch"
		build "$arch"
		symbols "$arch"
		# The program, stripped (same build id and layout), on every
		# architecture: qemu-user cores hold no program text, so the
		# converter tests need it, and the walks with local debug info
		# (--use-local-debuginfo) read its unwind tables and code.
		"${CC%gcc}strip" -o "$WORK/$arch/crashdemo.stripped" "$WORK/$arch/crashdemo"
		zstd -q -f -19 -T1 "$WORK/$arch/crashdemo.stripped" -o "$OUT/cores/$arch-crashdemo.zst"
		chmod 644 "$OUT/cores/$arch-crashdemo.zst"
		for c in $(cases "$arch"); do
			local name=$arch-$c producer
			producer=$(crash "$arch" "$c")
			convert "$arch" "$c" "$producer"
			oracles "$arch" "$c"
			local threads
			threads=$(grep -c '^thread ' "$OUT/oracle/$name.frames.txt")
			sed -i "/^$name /d" "$manifest"
			echo "$name $arch $c $producer $threads" >>"$manifest"
			if [[ " $KEEP_CORES " == *" $name "* ]]; then
				zstd -q -f -19 -T1 "$WORK/$arch/$c/core" -o "$OUT/cores/$name.core.zst"
			fi
			log "$name: $producer core, $threads threads"
		done
	done
	sort -o "$manifest" "$manifest"
	[ -n "${DYNAMIC_ONLY:-}" ] || extra_cases
	if [[ " $ARCHES " == *" amd64 "* || -n "${DYNAMIC_ONLY:-}" ]]; then dynamic_case; fi
}

main "$@"
