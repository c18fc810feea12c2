/*
 * analyze.h - `tracebench analyze`: entry point of the analyze program.
 */
#ifndef TB_ANALYZE_H
#define TB_ANALYZE_H

int analyze_main(int argc, char **argv);

#endif
