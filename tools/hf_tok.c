/* hf_tok.c - the Hugging Face tokenizer on many sentences at once, for tests
 * (tests/ref/hf_gpt2_tokenizer.py): hf_tok VOCAB_JSON MERGES_TXT, or hf_tok DIR (a model
 * directory's tokenizer.json or vocab.json + merges.txt). Reads one JSON string per line on
 * stdin and writes that text's token ids, space-separated, one line each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_tokenizer.h"
#include "json.h"

int main(int argc, char **argv)
{
    HfTok *t = NULL;
    char err[1024];
    int rc = argc == 3 ? hf_tok_load_gpt2(&t, argv[1], argv[2], err, sizeof err)
             : argc == 2 ? hf_tok_load_dir(&t, argv[1], -1, err, sizeof err) : -2;
    if (rc == -2) {
        fprintf(stderr, "usage: hf_tok VOCAB_JSON MERGES_TXT | hf_tok DIR  < json-strings\n");
        return 2;
    }
    if (rc) {
        fprintf(stderr, "hf_tok: %s\n", err);
        return 1;
    }
    static char line[1 << 16];
    static int ids[1 << 14];
    int no = 0;
    while (fgets(line, sizeof line, stdin)) {
        no++;
        cJSON *s = json_parse_text("stdin", line, strlen(line), err, sizeof err);
        if (!cJSON_IsString(s)) {
            fprintf(stderr, "hf_tok: line %d is not a JSON string\n", no);
            cJSON_Delete(s);
            hf_tok_free(t);
            return 1;
        }
        int n = hf_tok_encode(t, s->valuestring, ids, (int)(sizeof ids / sizeof ids[0]), NULL);
        for (int i = 0; i < n; i++)
            printf("%s%d", i ? " " : "", ids[i]);
        putchar('\n');
        cJSON_Delete(s);
    }
    hf_tok_free(t);
    return 0;
}
