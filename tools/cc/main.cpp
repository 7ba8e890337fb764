// cc: connected components (hooking and pointer jumping) of a graph whose neighbour lists live
// on (emulated) SSDs and are read through the BaM cache, or in GPU, pinned host or managed
// memory (graph.access); BaM paper §5.2, Figures 7-11. Main loop: bam/harness/tool_main.hpp;
// everything else: tools/graph-common.
#include "graph_tool.hpp"

int main(int argc, char** argv) {
  return bam::run_bench_tool(bam::apps::graph_tool_spec(bam::apps::graph_algorithm::cc), argc,
                             argv);
}
