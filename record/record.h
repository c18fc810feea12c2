/*
 * record.h - `tracebench record`: entry point of the record program.
 */
#ifndef TB_RECORD_H
#define TB_RECORD_H

int record_main(int argc, char **argv);

#endif
