"""A preview through a real Blender and back (issue 45, tests/cli/gltf_blender_roundtrip.sh):
imported with the settings docs/gltf.md gives ("Blender round trip"), exported with no edit,
then one key of one bone changed through bpy and exported again. Run as

    blender -b --factory-startup --python tests/tools/blender_roundtrip.py -- \\
        IN.glb SAME.glb EDIT.glb BONE

EDIT.glb: the middle key of BONE's rotation (its x in the bone's own space) turned by 0.1,
the quaternion kept unit. Prints "roundtrip: <action> <bone> frame F" of the edited key."""
import math
import sys

import bpy
import numpy

# Debian's Blender 3.4 importer still says numpy.bool, which numpy 1.24 removed (as
# tests/tools/blender_check.py): the test's business, not animfs's.
if "bool" not in vars(numpy):
    numpy.bool = bool

src, same, edit, bone = sys.argv[sys.argv.index("--") + 1:][:4]


def export(path):
    bpy.ops.export_scene.gltf(filepath=path, export_format="GLB", export_animations=True,
                              export_force_sampling=False, export_frame_range=False, export_yup=True)


bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.context.scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=src, bone_heuristic="BLENDER")
export(same)
path = 'pose.bones["%s"].rotation_quaternion' % bone
done = False
for act in bpy.data.actions:
    curves = {fc.array_index: fc for fc in act.fcurves if fc.data_path == path}
    if len(curves) != 4 or done:
        continue
    k = len(curves[0].keyframe_points) // 2
    q = [curves[i].keyframe_points[k].co[1] for i in range(4)]
    q[1] += 0.1
    n = math.sqrt(sum(x * x for x in q))
    for i in range(4):
        curves[i].keyframe_points[k].co[1] = q[i] / n
        curves[i].update()
    print("roundtrip: %s %s frame %g" % (act.name, bone, curves[0].keyframe_points[k].co[0]))
    done = True
if not done:
    sys.exit("no rotation curves of bone " + bone)
export(edit)
