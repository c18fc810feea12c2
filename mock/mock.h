/*
 * mock.h - `tracebench mock`: a deterministic OpenAI-compatible streaming
 * server, the default endpoint of the demo and the tests.
 */
#ifndef TB_MOCK_H
#define TB_MOCK_H

int mock_main(int argc, char **argv);

#endif
