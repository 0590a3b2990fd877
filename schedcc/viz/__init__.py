"""Pictures: the dependence DAG (Graphviz), timelines, pipeline diagrams."""
