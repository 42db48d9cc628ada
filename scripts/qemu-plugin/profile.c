/*
 * Per-address instruction counts for QEMU system emulation (TCG plugin):
 * every executed instruction below 4 MiB counts once at its address; at exit
 * the non-zero counts go to $PROF_OUT (default /tmp/prof.out) as
 * "hex-address count" lines. scripts/qemu-plugin/profile.sh builds it and
 * turns two runs (0 and N calls) into instructions per call and function.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include <qemu-plugin.h>
QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;
#define N (1u << 21)
static uint64_t *counts;
static void exec_cb(unsigned int vcpu, void *udata) { (void)vcpu; counts[(uintptr_t)udata]++; }
static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if ((pc >> 1) < N)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_cb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)(pc >> 1));
    }
}
static void at_exit(qemu_plugin_id_t id, void *p) {
    (void)id; (void)p;
    const char *o = getenv("PROF_OUT");
    FILE *f = fopen(o ? o : "/tmp/prof.out", "w");
    for (uint32_t i = 0; i < N; i++) if (counts[i]) fprintf(f, "%x %lu\n", i << 1, (unsigned long)counts[i]);
    fclose(f);
}
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info; (void)argc; (void)argv;
    counts = calloc(N, sizeof(uint64_t));
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
