/*
 * The operator kinds (op_kind.h): the table, the shape check, and each
 * kind's FLOPs and bytes per micro-batch of q samples, the counts the
 * analytic cost source turns into time (profile/analytic.c; the same
 * formulas wrote datasets/graphs, scripts/make-graphs.sh):
 *   linear [n, k]: forward, input gradient and weight gradient each
 *     2 q n k FLOPs, moving the weights (2 n k bytes, fp16) and q (n + k)
 *     activations (2 bytes each);
 *   transformer_layer [s, h, f, a]: weights w = 4 h^2 + 2 h f; forward
 *     q (2 s w + 4 s^2 h) FLOPs, input gradient q (2 s w + 8 s^2 h), weight
 *     gradient q 2 s w; bytes 2 w + q s h 16 (8 for the weight gradient);
 *   attention [s, h, a]: the same with w = 4 h^2 (QKV and output
 *     projections, no feed-forward);
 *   embedding_bag [rows, dim, bag]: q bag dim adds, 8 q bag dim bytes, in
 *     each phase;
 *   layernorm [n]: 8 q n FLOPs, 4 q n bytes; gelu [n]: 10 q n, 4 q n; no
 *     weight gradient;
 *   input, concat, interaction: moving out_bytes per sample twice; no
 *     weight gradient.
 */
#include "ops/op_kind.h"

#include <stdio.h>
#include <string.h>

const char *layer_kind_name(enum layer_kind k)
{
	static const char *const names[] = {"linear", "gelu", "layernorm", "attention"};
	return k >= 0 && k < LAYER_KINDS ? names[k] : "?";
}

/* ---- work per kind --------------------------------------------------------------- */

static struct op_work phase(double flops, double bytes)
{
	return (struct op_work){true, flops, bytes};
}

static void work_copy(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	w[0] = w[1] = phase(0, 2.0 * q * out_bytes);
	w[2] = (struct op_work){0};
}

static void work_linear(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	double n = sh[0], k = sh[1];
	w[0] = w[1] = w[2] = phase(2.0 * q * n * k, 2 * n * k + 2.0 * q * (n + k));
}

static void work_elementwise(double fl, const double *sh, int q, struct op_work w[3])
{
	w[0] = w[1] = phase(fl * q * sh[0], 4.0 * q * sh[0]);
	w[2] = (struct op_work){0};
}

static void work_gelu(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	work_elementwise(10, sh, q, w);
}

static void work_layernorm(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	work_elementwise(8, sh, q, w);
}

/* s tokens of width h, feed-forward width f (0: attention alone) */
static void work_attention_ffn(double s, double h, double f, int q, struct op_work w[3])
{
	double wt = 4 * h * h + 2 * h * f;
	w[0] = phase(q * (2 * s * wt + 4 * s * s * h), 2 * wt + q * s * h * 16);
	w[1] = phase(q * (2 * s * wt + 8 * s * s * h), 2 * wt + q * s * h * 16);
	w[2] = phase(q * 2 * s * wt, 2 * wt + q * s * h * 8);
}

static void work_attention(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	work_attention_ffn(sh[0], sh[1], 0, q, w);
}

static void work_transformer(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	work_attention_ffn(sh[0], sh[1], sh[2], q, w);
}

static void work_embedding_bag(const double *sh, double out_bytes, int q, struct op_work w[3])
{
	double dim = sh[1], bag = sh[2];
	w[0] = w[1] = w[2] = phase(q * bag * dim, 8.0 * q * bag * dim);
}

/* ---- the table (in enum op_kind_id order) ------------------------------------------ */

static const struct op_kind_entry kinds[OP_KIND_COUNT] = {
	{OP_KIND_INPUT, "input", 0, "", -1, work_copy, 0, {0}},
	{OP_KIND_CONCAT, "concat", 0, "", -1, work_copy, 0, {0}},
	{OP_KIND_INTERACTION, "interaction", 0, "", -1, work_copy, 1, {LAYER_LINEAR}},
	{OP_KIND_LINEAR, "linear", 2, "[n, k]", -1, work_linear, 1, {LAYER_LINEAR}},
	{OP_KIND_GELU, "gelu", 1, "[n]", -1, work_gelu, 1, {LAYER_GELU}},
	{OP_KIND_LAYERNORM, "layernorm", 1, "[n]", -1, work_layernorm, 1, {LAYER_LAYERNORM}},
	{OP_KIND_ATTENTION, "attention", 3, "[seq, hidden, heads]", 2, work_attention, 1,
	 {LAYER_ATTENTION}},
	{OP_KIND_TRANSFORMER_LAYER, "transformer_layer", 4, "[seq, hidden, ffn, heads]", 3,
	 work_transformer, 6,
	 {LAYER_LAYERNORM, LAYER_ATTENTION, LAYER_LAYERNORM, LAYER_LINEAR, LAYER_GELU, LAYER_LINEAR}},
	{OP_KIND_EMBEDDING, "embedding", 0, "", -1, NULL, 1, {LAYER_LINEAR}},
	{OP_KIND_EMBEDDING_BAG, "embedding_bag", 3, "[rows, dim, bag]", -1, work_embedding_bag, 1,
	 {LAYER_LINEAR}},
};

const struct op_kind_entry *op_kind_find(const char *name)
{
	for (int i = 0; name && i < OP_KIND_COUNT; i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const struct op_kind_entry *op_kind_at(int i)
{
	return i >= 0 && i < OP_KIND_COUNT ? &kinds[i] : NULL;
}

int op_kind_count(void)
{
	return OP_KIND_COUNT;
}

const char *op_kind_names(char *buf, size_t len, bool costed)
{
	size_t at = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; i < OP_KIND_COUNT && at < len; i++) {
		if (costed && !kinds[i].work)
			continue;
		int n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", kinds[i].name);
		at += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

enum status op_kind_check(const struct op_kind_entry *k, int nshape, const double *shape,
			  struct error *err)
{
	if (k->nshape && nshape != k->nshape)
		return err_set(err, "kind '%s': shape needs %d numbers %s, has %d", k->name,
			       k->nshape, k->shape, nshape);
	for (int i = 0; i < k->nshape; i++)
		if (!(shape[i] >= 1 && shape[i] <= 1e8))
			return err_set(err, "kind '%s': shape[%d] = %g is out of range [1, 1e8]", k->name,
				       i, shape[i]);
	if (k->heads >= 0) {
		int heads = (int)shape[k->heads];
		if ((int)shape[1] % heads)
			return err_set(err, "kind '%s': hidden %g is not a multiple of the %d heads",
				       k->name, shape[1], heads);
	}
	return STATUS_OK;
}
