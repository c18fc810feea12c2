/*
 * info.h - `tracebench record info TRACE`: what a trace holds, so a user
 * knows it before replaying it.
 */
#ifndef TB_INFO_H
#define TB_INFO_H

int info_main(int argc, char **argv);

#endif
