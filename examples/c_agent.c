/* An example Trap! agent in C, speaking the minimal trap-protocol 1.

   For each decision it reads one line, the state in the core's notation
       ...0.../......./......./......./......./......./...1... 0 move - 0
   (rows joined by '/', then the player to act, the phase, the target, the turn), and
   answers one line, a flat cell index row * N + col. It never asks for the extras.
   Play: move to the free neighbour with the most free cells around it; throw at a free
   cell next to the opponent, the nearest to itself.

   Build and try:
       cc -O2 -o c_agent examples/c_agent.c
       trap-tournament random 'exec:./c_agent' --games 4 --board-size 5

   The protocol is in docs/PROTOCOL.md. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 65536

static char board[MAX_LINE]; /* the cells, row by row, without the '/' separators */
static int n;                /* the board size N */

/* Reads the board field of a state line into `board`; returns the size N, or 0 if bad. */
static int parse_board(const char *field) {
    int rows = 0, cells = 0;
    for (const char *p = field; *p && *p != ' '; p++) {
        if (*p == '/') {
            rows++;
        } else {
            board[cells++] = *p;
        }
    }
    board[cells] = '\0';
    rows++;
    return rows * rows == cells ? rows : 0;
}

static int find(char player) { return (int)(strchr(board, player) - board); }

static int is_free(int row, int col) {
    return row >= 0 && row < n && col >= 0 && col < n && board[row * n + col] == '.';
}

/* The free cells around `cell`, written to `out` (up to 8); returns how many. */
static int free_neighbours(int cell, int *out) {
    int count = 0, row = cell / n, col = cell % n;
    for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++)
            if ((dr || dc) && is_free(row + dr, col + dc)) out[count++] = (row + dr) * n + col + dc;
    return count;
}

static int choose_move(int me) {
    int moves[8], around[8], best = -1, best_room = -1;
    int count = free_neighbours(me, moves);
    for (int i = 0; i < count; i++) {
        int room = free_neighbours(moves[i], around);
        if (room > best_room) best = moves[i], best_room = room;
    }
    return best;
}

static int distance(int a, int b) { return abs(a / n - b / n) + abs(a % n - b % n); }

static int choose_throw(int me, int other) {
    int targets[8], best = -1;
    int count = free_neighbours(other, targets);
    for (int i = 0; i < count; i++)
        if (best < 0 || distance(me, targets[i]) < distance(me, best)) best = targets[i];
    for (int cell = 0; best < 0 && cell < n * n; cell++) /* no free cell by the opponent */
        if (cell != me && cell != other) best = cell;
    return best;
}

int main(void) {
    static char line[MAX_LINE];
    while (fgets(line, sizeof line, stdin)) {
        char player, phase[16];
        const char *rest = strchr(line, ' ');
        n = parse_board(line);
        if (!n || !rest || sscanf(rest, " %c %15s", &player, phase) != 2) {
            fprintf(stderr, "c_agent: cannot read the state line: %s", line);
            return 1;
        }
        int me = find(player), other = find(player == '0' ? '1' : '0');
        printf("%d\n", strcmp(phase, "move") == 0 ? choose_move(me) : choose_throw(me, other));
        fflush(stdout); /* a pipe is block-buffered: without this the answer never leaves */
    }
    return 0;
}
