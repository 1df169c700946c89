/* The Bawo solver's search in C: bawo.solve.Solver's proof-number search, step for step.

   The same tree, the same order of children, the same back-ups and the same tables as the
   Python search in solve.py, so both expand the same nodes and answer the same
   (tests/test_solve.py compares them node for node). Only the speed differs. Move generation and
   sowing are shared_rules/bawo_viper.py's gen and sow, which tests/mp/check_bawo_viper.py
   holds to shared_rules/bawo.py. Every answer is still checked by bawo.proofcheck through
   shared_rules before anything uses it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF ((uint64_t)1 << 40)
#define KEYLEN 33
#define V_DISPROVED (-2) /* table value: the attacker cannot force a win */

typedef struct Node {
    uint64_t pn, dn, h;
    struct Node *kids; /* NULL until expanded; freed when the node is solved */
    uint8_t b[32];
    uint8_t turn, or_node, tainted, move, nkids, expanded;
} Node;

/* -- the rules (bawo_viper.gen and sow) ----------------------------------------------------- */

static int sow(uint8_t *t, int o, int p, int i, int step, int cap, long maxl) {
    int n = t[o + i];
    t[o + i] = 0;
    int pos = i;
    long laps = 0;
    while (laps < maxl) {
        laps++;
        if (n >= 16) {
            int q = n >> 4;
            n &= 15;
            for (int j = o; j < o + 16; j++) t[j] = (uint8_t)(t[j] + q);
        }
        while (n > 0) {
            pos = (pos + step) & 15;
            t[o + pos]++;
            n--;
        }
        int c = t[o + pos];
        if (c == 1) return 1;
        int f = p + 7 - pos;
        if (cap && pos < 8 && t[f]) {
            int e;
            n = t[f];
            t[f] = 0;
            if (pos <= 1) { step = 1; e = 0; }
            else if (pos >= 6) { step = 15; e = 7; }
            else e = step == 1 ? 0 : 7;
            pos = (e - step) & 15;
        } else {
            n = c;
            t[o + pos] = 0;
        }
    }
    return 0;
}

static int first_captures(const uint8_t *s, int o, int p, int i, int n, int d) {
    int last = (i + n * (1 + 14 * d)) & 15;
    if (last < 8 && s[p + 7 - last]) {
        int before = (n - 1) >> 4;
        if (last != i) before += s[o + last];
        return before > 0;
    }
    return 0;
}

/* The legal actions of board s with side o/16 to move, ascending, into out; each one's board
   into after[action]. Returns how many. */
static int gen(const uint8_t *s, int o, int p, long maxl, uint8_t after[32][32], uint8_t *out) {
    int cap = 0;
    for (int i = 0; i < 16 && !cap; i++) {
        int n = s[o + i];
        if (n >= 2) for (int d = 0; d < 2; d++) if (first_captures(s, o, p, i, n, d)) cap = 1;
    }
    int k = 0;
    for (int i = 0; i < 16; i++) {
        int n0 = s[o + i];
        if (n0 < 2) continue;
        for (int d = 0; d < 2; d++) {
            int c = first_captures(s, o, p, i, n0, d);
            if (cap && !c) continue;
            int a = (i << 1) | d;
            memcpy(after[a], s, 32);
            if (sow(after[a], o, p, i, 1 + 14 * d, c, maxl)) out[k++] = (uint8_t)a;
        }
    }
    return k;
}

static int front_empty(const uint8_t *b, int o) {
    for (int k = o; k < o + 8; k++) if (b[k]) return 0;
    return 1;
}

/* solve._settled: the winner if the game is over with side t to move, else -1. */
static int settled(const uint8_t *b, int t) {
    if (front_empty(b, t << 4)) return 1 - t;
    if (front_empty(b, 16 - (t << 4))) return t;
    int o = t << 4;
    for (int i = o; i < o + 16; i++) if (b[i] >= 2) return -1;
    return 1 - t;
}

/* -- the tables: key (32 counts and the turn) -> value, open addressing ---------------------- */

typedef struct {
    uint64_t h; /* 0: empty */
    uint8_t k[KEYLEN];
    int8_t v;   /* the winning move, -1 (proved, nothing to choose) or V_DISPROVED */
} Entry;

typedef struct {
    Entry *e;
    size_t cap, used, proved;
} Table;

static uint64_t hash_key(const uint8_t *b, int turn) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)turn;
    for (int k = 0; k < 32; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, 8);
        h ^= w;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return h | 1;
}

static Entry *t_find(Table *t, uint64_t h, const uint8_t *k) {
    size_t m = t->cap - 1, i = (size_t)h & m;
    for (;;) {
        Entry *e = &t->e[i];
        if (!e->h) return e;
        if (e->h == h && !memcmp(e->k, k, KEYLEN)) return e;
        i = (i + 1) & m;
    }
}

static int t_grow(Table *t) {
    size_t cap = t->cap ? t->cap * 2 : 1 << 16;
    Entry *old = t->e, *ne = calloc(cap, sizeof(Entry));
    if (!ne) return -1;
    size_t oc = t->cap;
    t->e = ne;
    t->cap = cap;
    for (size_t i = 0; i < oc; i++)
        if (old[i].h) *t_find(t, old[i].h, old[i].k) = old[i];
    free(old);
    return 0;
}

/* Set key's value; -1 on no memory. A key never changes from proved to disproved (both are
   exact), so a second set only repeats the first. */
static int t_set(Table *t, uint64_t h, const uint8_t *k, int v) {
    if ((t->used + 1) * 2 > t->cap && t_grow(t)) return -1;
    Entry *e = t_find(t, h, k);
    if (!e->h) {
        e->h = h;
        memcpy(e->k, k, KEYLEN);
        t->used++;
        if (v != V_DISPROVED) t->proved++;
    }
    e->v = (int8_t)v;
    return 0;
}

static Entry *t_get(Table *t, uint64_t h, const uint8_t *k) {
    if (!t->cap) return NULL;
    Entry *e = t_find(t, h, k);
    return e->h ? e : NULL;
}

/* -- the search ---------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Table tab[2];      /* per attacker */
    long maxl;
    unsigned long long nodes; /* expansions over the object's life */
    size_t live, max_live;    /* tree nodes allocated now, and the most allowed */
    /* one search's state */
    unsigned long long node_limit;
    double deadline;   /* < 0: none */
    PyObject *progress;
    Node **line;
    size_t line_len, line_cap;
    int attacker;
    int failed;        /* 1: out of budget, 2: a Python error (set), 3: no memory */
} Search;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t node_key_buf[KEYLEN];

static const uint8_t *node_key(const Node *n) {
    memcpy(node_key_buf, n->b, 32);
    node_key_buf[32] = n->turn;
    return node_key_buf;
}

static int on_path(Search *s, const Node *n) {
    for (size_t i = 0; i < s->line_len; i++) {
        const Node *x = s->line[i];
        if (x->h == n->h && x->turn == n->turn && !memcmp(x->b, n->b, 32)) return 1;
    }
    return 0;
}

static void free_kids(Search *s, Node *n) {
    if (!n->kids) return;
    for (int i = 0; i < n->nkids; i++) free_kids(s, &n->kids[i]);
    s->live -= n->nkids;
    free(n->kids);
    n->kids = NULL;
    n->nkids = 0;
}

/* solve.Solver._init_leaf. Returns -1 on no memory. */
static int init_leaf(Search *s, Node *n, int check_path) {
    Table *t = &s->tab[s->attacker];
    if (check_path && on_path(s, n)) {
        n->pn = INF; n->dn = 0; n->tainted = 1;
        return 0;
    }
    const uint8_t *k = node_key(n);
    Entry *e = t_get(t, n->h, k);
    if (e) {
        if (e->v == V_DISPROVED) { n->pn = INF; n->dn = 0; }
        else { n->pn = 0; n->dn = INF; }
        return 0;
    }
    int w = settled(n->b, n->turn);
    if (w >= 0) {
        if (w == s->attacker) { n->pn = 0; n->dn = INF; return t_set(t, n->h, k, -1); }
        n->pn = INF; n->dn = 0;
        return t_set(t, n->h, k, V_DISPROVED);
    }
    return 0;
}

static int cmp_score(const void *a, const void *b) {
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

/* solve.Solver._expand. Returns 0, or sets s->failed and returns -1. */
static int expand(Search *s, Node *n) {
    s->nodes++;
    if (s->nodes >= s->node_limit) { s->failed = 1; return -1; }
    if (!(s->nodes & 255)) {
        if (s->deadline >= 0 && now() > s->deadline) { s->failed = 1; return -1; }
        if (PyErr_CheckSignals()) { s->failed = 2; return -1; }
        if (s->progress && !(s->nodes & 16383)) {
            PyObject *r = PyObject_CallNoArgs(s->progress);
            if (!r) { s->failed = 2; return -1; }
            Py_DECREF(r);
        }
    }
    uint8_t after[32][32], moves[32];
    int o = n->turn << 4, p = 16 - o;
    int k = gen(n->b, o, p, s->maxl, after, moves);
    n->expanded = 1;
    n->nkids = 0;
    if (!k) return 0; /* only endless starts: the side to move loses */
    /* Most of the mover's seeds after the move first; ties in action order. */
    int order[32][2];
    for (int i = 0; i < k; i++) {
        int sum = 0;
        for (int j = o; j < o + 16; j++) sum += after[moves[i]][j];
        order[i][0] = -sum;
        order[i][1] = i;
    }
    qsort(order, k, sizeof order[0], cmp_score);
    /* The tree's memory is a budget too: past it the answer is "unknown", as for time. */
    if (s->live + k > s->max_live) { s->failed = 1; return -1; }
    Node *kids = malloc(k * sizeof(Node));
    if (!kids) { s->failed = 3; return -1; }
    s->live += k;
    for (int i = 0; i < k; i++) {
        Node *c = &kids[i];
        int m = moves[order[i][1]];
        memcpy(c->b, after[m], 32);
        c->turn = (uint8_t)(1 - n->turn);
        c->h = hash_key(c->b, c->turn);
        c->or_node = (uint8_t)!n->or_node;
        c->move = (uint8_t)m;
        c->pn = c->dn = 1;
        c->kids = NULL;
        c->nkids = 0;
        c->tainted = 0;
        c->expanded = 0;
        if (init_leaf(s, c, 1)) { free(kids); s->live -= k; s->failed = 3; return -1; }
    }
    n->kids = kids;
    n->nkids = (uint8_t)k;
    return 0;
}

/* solve.Solver._update: n's numbers from its children; 0 if they did not change, -1 on no
   memory. */
static int update(Search *s, Node *n) {
    Table *t = &s->tab[s->attacker];
    if (!n->expanded) return 1;
    uint64_t old_pn = n->pn, old_dn = n->dn;
    Node *kids = n->kids;
    int nk = n->nkids, err = 0;
    if (n->or_node) {
        uint64_t pn = INF, dn = 0;
        int tainted = 0;
        Node *win = NULL;
        for (int i = 0; i < nk; i++) {
            Node *c = &kids[i];
            if (c->pn < pn) {
                pn = c->pn;
                if (!pn) { win = c; break; }
            }
            dn += c->dn;
            tainted = tainted || c->tainted;
        }
        if (win) {
            n->pn = 0; n->dn = INF;
            err = t_set(t, n->h, node_key(n), win->move);
        } else {
            n->pn = pn;
            n->dn = dn < INF ? dn : INF;
            if (!n->dn) {
                n->tainted = (uint8_t)tainted;
                if (!tainted) err = t_set(t, n->h, node_key(n), V_DISPROVED);
            }
        }
    } else {
        uint64_t pn = 0, dn = INF;
        Node *loss = NULL;
        for (int i = 0; i < nk; i++) {
            Node *c = &kids[i];
            if (!c->dn) {
                if (!loss || (loss->tainted && !c->tainted)) loss = c;
            } else if (c->dn < dn) dn = c->dn;
            pn += c->pn;
        }
        if (loss) {
            n->pn = INF; n->dn = 0; n->tainted = loss->tainted;
            if (!loss->tainted) err = t_set(t, n->h, node_key(n), V_DISPROVED);
        } else {
            n->pn = pn < INF ? pn : INF;
            n->dn = dn;
            if (!n->pn) err = t_set(t, n->h, node_key(n), -1);
        }
    }
    if (err) { s->failed = 3; return -1; }
    if (!n->pn || !n->dn) {
        free_kids(s, n);
        return 1;
    }
    return n->pn != old_pn || n->dn != old_dn;
}

static int push_line(Search *s, Node *n) {
    if (s->line_len == s->line_cap) {
        size_t cap = s->line_cap ? s->line_cap * 2 : 256;
        Node **l = realloc(s->line, cap * sizeof(Node *));
        if (!l) { s->failed = 3; return -1; }
        s->line = l;
        s->line_cap = cap;
    }
    s->line[s->line_len++] = n;
    return 0;
}

/* solve.Solver._search. */
static void search(Search *s, Node *root) {
    s->line_len = 0;
    if (push_line(s, root)) return;
    while (root->pn && root->dn) {
        Node *n = s->line[s->line_len - 1];
        while (n->expanded) {
            Node *best = NULL;
            uint64_t v = INF + 1;
            if (n->or_node) {
                for (int i = 0; i < n->nkids; i++) if (n->kids[i].pn < v) { v = n->kids[i].pn; best = &n->kids[i]; }
            } else {
                for (int i = 0; i < n->nkids; i++) if (n->kids[i].dn < v) { v = n->kids[i].dn; best = &n->kids[i]; }
            }
            n = best;
            if (push_line(s, n)) return;
        }
        /* The path holds the line's keys, n's own included (it is on the line). */
        if (expand(s, n)) return;
        for (;;) {
            int r = update(s, n);
            if (r < 0) return;
            if (!r || n == root) break;
            s->line_len--;
            n = s->line[s->line_len - 1];
        }
    }
}

static int bad_attacker(int attacker) {
    if (attacker == 0 || attacker == 1) return 0;
    PyErr_SetString(PyExc_ValueError, "attacker is 0 or 1");
    return 1;
}

static int parse_key(PyObject *key, const uint8_t **k) {
    if (!PyBytes_Check(key) || PyBytes_GET_SIZE(key) != KEYLEN) {
        PyErr_SetString(PyExc_ValueError, "a position key is 33 bytes: 32 counts and the turn");
        return -1;
    }
    *k = (const uint8_t *)PyBytes_AS_STRING(key);
    if ((*k)[32] > 1) {
        PyErr_SetString(PyExc_ValueError, "a position key's turn is 0 or 1");
        return -1;
    }
    return 0;
}

/* prove(key, attacker, max_nodes, max_seconds, progress) -> True, False or None (budget).
   max_seconds < 0: no time limit. */
static PyObject *Search_prove(Search *s, PyObject *args) {
    PyObject *key, *progress;
    int attacker;
    long long max_nodes;
    double max_seconds;
    if (!PyArg_ParseTuple(args, "OiLdO", &key, &attacker, &max_nodes, &max_seconds, &progress)) return NULL;
    const uint8_t *k;
    if (parse_key(key, &k) || bad_attacker(attacker)) return NULL;
    s->attacker = attacker;
    s->node_limit = s->nodes + (max_nodes > 0 ? (unsigned long long)max_nodes : 0);
    s->deadline = max_seconds < 0 ? -1.0 : now() + max_seconds;
    s->progress = progress == Py_None ? NULL : progress;
    s->failed = 0;
    s->line_len = 0;
    Node root;
    memset(&root, 0, sizeof root);
    memcpy(root.b, k, 32);
    root.turn = k[32];
    root.h = hash_key(root.b, root.turn);
    root.or_node = root.turn == attacker;
    root.pn = root.dn = 1;
    Entry *e = t_get(&s->tab[attacker], root.h, k);
    if (e) return PyBool_FromLong(e->v != V_DISPROVED);
    if (init_leaf(s, &root, 0)) return PyErr_NoMemory();
    if (!root.pn || !root.dn) return PyBool_FromLong(!root.pn);
    if (max_nodes <= 0 || (max_seconds >= 0 && max_seconds <= 0)) Py_RETURN_NONE;
    search(s, &root);
    free_kids(s, &root);
    s->progress = NULL;
    if (s->failed == 2) return NULL;
    if (s->failed == 3) return PyErr_NoMemory();
    if (s->failed == 1) Py_RETURN_NONE;
    return PyBool_FromLong(!root.pn);
}

/* get(attacker, key): the proved move (-1: nothing to choose), False if disproved, None if
   neither is known. */
static PyObject *Search_get(Search *s, PyObject *args) {
    PyObject *key;
    int attacker;
    const uint8_t *k;
    if (!PyArg_ParseTuple(args, "iO", &attacker, &key) || parse_key(key, &k) || bad_attacker(attacker))
        return NULL;
    Entry *e = t_get(&s->tab[attacker], hash_key(k, k[32]), k);
    if (!e) Py_RETURN_NONE;
    if (e->v == V_DISPROVED) Py_RETURN_FALSE;
    return PyLong_FromLong(e->v);
}

/* counts(attacker) -> (proved, disproved) */
static PyObject *Search_counts(Search *s, PyObject *args) {
    int attacker;
    if (!PyArg_ParseTuple(args, "i", &attacker) || bad_attacker(attacker)) return NULL;
    Table *t = &s->tab[attacker];
    return Py_BuildValue("(nn)", (Py_ssize_t)t->proved, (Py_ssize_t)(t->used - t->proved));
}

/* proved_keys(attacker) -> list of the keys proved for attacker */
static PyObject *Search_proved_keys(Search *s, PyObject *args) {
    int attacker;
    if (!PyArg_ParseTuple(args, "i", &attacker) || bad_attacker(attacker)) return NULL;
    Table *t = &s->tab[attacker];
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (size_t i = 0; i < t->cap; i++) {
        Entry *e = &t->e[i];
        if (!e->h || e->v == V_DISPROVED) continue;
        PyObject *b = PyBytes_FromStringAndSize((const char *)e->k, KEYLEN);
        if (!b || PyList_Append(out, b)) { Py_XDECREF(b); Py_DECREF(out); return NULL; }
        Py_DECREF(b);
    }
    return out;
}

static PyObject *Search_get_nodes(Search *s, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(s->nodes);
}

static PyObject *Search_get_live(Search *s, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(s->live);
}

static int Search_init(Search *s, PyObject *args, PyObject *kw) {
    long maxl = 1000;
    Py_ssize_t max_tree = 1 << 23;
    static char *names[] = {"max_laps", "max_tree", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ln", names, &maxl, &max_tree)) return -1;
    if (maxl < 1 || max_tree < 1) {
        PyErr_SetString(PyExc_ValueError, "max_laps and max_tree are at least 1");
        return -1;
    }
    s->maxl = maxl;
    s->max_live = (size_t)max_tree;
    return 0;
}

static void Search_dealloc(Search *s) {
    free(s->tab[0].e);
    free(s->tab[1].e);
    free(s->line);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyMethodDef Search_methods[] = {
    {"prove", (PyCFunction)Search_prove, METH_VARARGS, "prove(key, attacker, max_nodes, max_seconds, progress)"},
    {"get", (PyCFunction)Search_get, METH_VARARGS, "get(attacker, key)"},
    {"counts", (PyCFunction)Search_counts, METH_VARARGS, "counts(attacker) -> (proved, disproved)"},
    {"proved_keys", (PyCFunction)Search_proved_keys, METH_VARARGS, "proved_keys(attacker)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"nodes", (getter)Search_get_nodes, NULL, "expansions over the object's life", NULL},
    {"live", (getter)Search_get_live, NULL, "tree nodes allocated now (0 between searches)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bawo._pnsearch.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(max_laps=1000, max_tree=2**23): the proof-number search's tables and loop "
              "(bawo.solve.Solver's fast path). max_tree: the most tree nodes alive at once "
              "(72 bytes each); past it prove() answers None, as when a budget runs out.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_pnsearch", "bawo.solve's search in C (see solve.py).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__pnsearch(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
