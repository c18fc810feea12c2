/*
 * replay.h - `tracebench replay`: entry point of the replay program.
 */
#ifndef TB_REPLAY_H
#define TB_REPLAY_H

int replay_main(int argc, char **argv);

#endif
