import sys, os
sys.path.append(os.path.join(os.path.dirname(__file__), '..'))
import testpy

# nodecure's own behaviour tests, in Node's test/parallel style.
def GetConfiguration(context, root):
  return testpy.ParallelTestConfiguration(context, root, 'cure')
