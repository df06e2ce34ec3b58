#!/usr/bin/env bash
# test_player.sh - the player end to end at 80×24 and 200×60 on the fixture course: paging,
# the causal mask (upper triangle masked, rows still sum to 1.00), chips and the
# equivariance verdict with PE off and on, the shape passport, the matrix picker, the
# sentence editor, help and menu overlays, shrinking below 80×24 and back, quitting,
# the progress file and resuming.
. "$(dirname "$0")/harness.bash"
# chip_rows moved|changed: reads the chips' output table (before | after) from the screen:
# "moved": every row tagged "from i" shows row i's values of the left table and row 0 "same";
# "changed": the rows of swapped tokens show values other than their original row's.
chip_rows() {
    /usr/bin/python3 -c '
import re, sys
want = sys.argv[1]
row = re.compile(r"^\s*(\d+) (\S+)\s+((?:-?\d+\.\d+\s+)+)\S\s+(\d+) (\S+)\s+((?:-?\d+\.\d+\s+)+)\S\s+(same|from \d+|changed)\s*$")
left, right = {}, {}
for l in sys.stdin.read().split("\n"):
    m = row.match(l.split("│")[-1])  # side by side: the widget pane only
    if m:
        left[int(m[1])] = (m[2], m[3].split())
        right[int(m[4])] = (m[5], m[6].split(), m[7])
if len(right) < 3: print("no output table"); sys.exit()
bad = []
for i, (word, vals, tag) in right.items():
    moved = [j for j, (w, v) in left.items() if w == word and j != i]
    if want == "moved":
        if tag.startswith("from") and left[int(tag.split()[1])][1] != vals: bad.append(f"row {i}")
        if not tag.startswith("from") and tag != "same": bad.append(f"row {i} {tag}")
    elif tag == "changed" and left[[j for j, (w, v) in left.items() if w == word][0]][1] == vals:
        bad.append(f"row {i} changed but equal")
if want == "changed" and not any(t == "changed" for _, _, t in right.values()): bad.append("nothing changed")
print(" ".join(bad) if bad else "ok")' "$1"
}
D=$(model_cfg decoder.json d_model)
DK=$(model_cfg decoder.json d_head)
NH=$(model_cfg decoder.json n_heads)

for size in 80x24 200x60; do
    W=${size%x*}
    H=${size#*x}
    rm -rf "$XDG_STATE_HOME"
    start "$W" "$H" -- --lessons "$FIXTURE"
    expect "lesson 1/2: Fixture heatmap" "$size: opens the course at lesson 1"
    expect "page 1/3" "$size: header shows page 1/3"
    check "$size: no mask: every row sums to 1.00" heatmap_full 6
    expect "m mask:off" "$size: footer names the mask key"

    keys m
    expect "mask:causal" "$size: m turns the causal mask on"
    check "$size: upper triangle masked, rows still sum to 1.00" heatmap_triangle "·" 6
    keys m
    expect "mask:none" "$size: m turns it off again"
    check "$size: mask off again: no masked cell" heatmap_full 6

    # cursor inspector: move to query 3, key 1
    keys Down Down Down Right
    expect "query 3 'on' → key 1 'cat'" "$size: the cursor inspects a cell"
    expect "q3·k1 = " "$size: the inspector shows q_i·k_j"
    # scores mode with the mask: −∞ above the diagonal
    keys m v
    expect "[scores]" "$size: v shows the scores"
    expect "−∞" "$size: masked scores read −∞"
    keys v m
    # heads and layers
    keys ']'
    expect "head 1 of $NH" "$size: ] selects the next head (counted from 0)"
    keys l
    expect "layer 1 of 2" "$size: l selects the next layer (counted from 0)"
    keys a
    expect "head $((NH - 1))" "$size: a shows every head as small multiples"
    # a grid row starts with its query token (at the pane's left edge): rows are labelled
    check "$size: small multiples label their rows with the tokens" sh -c \
        "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '(^|│) cat( {2,}| +[01]\\.[0-9]{2})'"
    if [ "$W" -ge 100 ]; then
        check "$size: small multiples carry their weights where they fit" sh -c \
            "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '(^|│) cat +[01]\.[0-9]{2} +[01]\.[0-9]{2}'"
    fi
    keys a
    keys p
    expect "PE:learned" "$size: p cycles the positional encoding"

    # the sentence editor: unknown word and a sentence too long
    keys e
    expect "edit the sentence" "$size: e opens the editor"
    keys C-u
    literal "the zyzzyva sat"
    expect "will be <unk>): zyzzyva" "$size: the editor names unknown words before use"
    keys Enter
    expect "shown as <unk>: zyzzyva" "$size: unknown words are reported"
    expect "<unk>" "$size: the heatmap labels the unknown word <unk>"
    keys e C-u
    literal "the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat"
    keys Enter
    expect "nothing was cut" "$size: a sentence over max_len is refused and explained"
    resize 70 20
    expect "need 80×24" "$size: resizing while editing shows the minimum"
    resize "$W" "$H"
    expect "edit the sentence" "$size: the editor survives the resize"
    keys Escape
    expect_gone "edit the sentence" "$size: ESC cancels the editor" 1
    keys r
    expect "reset to the page's starting state" "$size: r resets the controls"

    # help overlay: ESC closes at once
    keys '?'
    expect "keys (ESC closes)" "$size: ? opens the help"
    keys Escape
    expect_gone "keys (ESC closes)" "$size: ESC closes the help at once" 1

    # passport
    keys Space
    expect "page 2/3" "$size: space turns the page"
    expect "step 1/20: X  [6×$D]" "$size: the passport starts at X"
    keys '>' '>'
    expect "cols 3-" "$size: > scrolls the passport matrix to the right"
    keys o
    expect "Fixture speaker notes" "$size: o shows the speaker notes"
    keys Escape
    expect_gone "Fixture speaker notes" "$size: ESC closes the notes" 1
    keys n n n n
    expect "step 5/20: Q  [6×$DK]  L0.h0.q" "$size: n steps to Q [6×d_k]"
    keys n n n n
    expect "QKᵀ [6×6]" "$size: the chain reaches QKᵀ [6×6]"
    expect "X [6×$D] → PE [6×$D]" "$size: the chain lists the shapes so far"
    keys N
    expect "step 8/20" "$size: N steps back"

    # matrix: pick a tensor
    keys NPage
    expect "page 3/3" "$size: PgDn turns the page"
    expect "L0.mask  M  [6×6]" "$size: the matrix shows L0.mask"
    keys t
    expect "pick a tensor" "$size: t opens the tensor picker"
    keys Down Down Enter
    expect_gone "pick a tensor" "$size: enter picks a tensor"

    # chips: PE off -> outputs match; PE on -> do not match
    keys Space
    expect "lesson 2/2: Fixture chips" "$size: paging continues into lesson 2"
    expect "outputs match permutation" "$size: original order matches"
    keys Right Enter Right Right Enter
    expect "swapped positions 1 and 3" "$size: picking two chips swaps them"
    expect "order: 0 3 2 1 4" "$size: the order shows the swap"
    expect "outputs match permutation" "$size: PE off: outputs match permutation"
    out=$(screen | chip_rows moved)
    check "$size: the output rows moved with their tokens, values unchanged ($out)" test "$out" = ok
    keys p
    expect "PE:sinusoidal" "$size: p turns PE on"
    expect "outputs do not match" "$size: PE on: outputs do not match"
    out=$(screen | chip_rows changed)
    check "$size: PE on: the moved rows' values changed ($out)" test "$out" = ok
    keys r
    expect "order: 0 1 2 3 4" "$size: r resets the order"

    # too small and back
    resize 60 20
    expect "need 80×24" "$size: below the minimum a need 80×24 screen"
    resize "$W" "$H"
    expect "lesson 2/2: Fixture chips" "$size: growing back restores the page"

    # menu: completion marks
    keys g
    expect "lessons (enter opens, ESC closes)" "$size: g opens the lesson menu"
    expect "3/3 seen" "$size: the menu counts pages seen"
    expect "✓" "$size: a completed lesson is marked"
    keys Escape
    expect_gone "lessons (enter opens" "$size: ESC closes the menu" 1

    keys q
    expect_exit 0 "$size: q quits and restores the terminal"
    check "$size: progress file written" test -s "$XDG_STATE_HOME/attend/progress.json"
    check "$size: progress names the current lesson" grep -q '"chips"' "$XDG_STATE_HOME/attend/progress.json"

    start "$W" "$H" -- --lessons "$FIXTURE"
    expect "lesson 2/2: Fixture chips" "$size: restart resumes the lesson"
    expect "page 1/2" "$size: restart resumes the page"
    keys Space
    expect "page 2/2" "$size: prose-only page"
    keys BSpace
    expect "page 1/2" "$size: backspace goes back"
    keys q
    expect_exit 0 "$size: quit again"
done
finish
