/* Two threads, each with its own EGL context and pbuffer, issuing GLES2 calls at the same time. */
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static EGLDisplay dpy;
static EGLConfig cfg;
static pthread_barrier_t bar;

static void *work(void *arg) {
    int id = (int)(long)arg;
    EGLint pb[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
    EGLSurface s = eglCreatePbufferSurface(dpy, cfg, pb);
    EGLint ca[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    EGLContext c = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ca);
    eglMakeCurrent(dpy, s, s, c);
    pthread_barrier_wait(&bar);
    for (int i = 0; i < 50; i++) {
        glClearColor(id * 0.25f, i / 50.0f, 0.5f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        GLuint buf;
        glGenBuffers(1, &buf);
        glBindBuffer(GL_ARRAY_BUFFER, buf);
        float data[8] = {0, 1, 2, 3, (float)i, (float)id, 6.5f, -7.25f};
        glBufferData(GL_ARRAY_BUFFER, sizeof data, data, GL_STATIC_DRAW);
        glDeleteBuffers(1, &buf);
        GLint v[4];
        glGetIntegerv(GL_VIEWPORT, v);
        eglSwapBuffers(dpy, s);
    }
    glFinish();
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, c);
    eglDestroySurface(dpy, s);
    return NULL;
}

int main(void) {
    dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (!eglInitialize(dpy, NULL, NULL)) { fprintf(stderr, "no egl\n"); return 1; }
    eglBindAPI(EGL_OPENGL_ES_API);
    EGLint att[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                    EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLint n = 0;
    if (!eglChooseConfig(dpy, att, &cfg, 1, &n) || n < 1) { fprintf(stderr, "no config\n"); return 1; }
    pthread_t t[3];
    pthread_barrier_init(&bar, NULL, 3);
    for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    eglTerminate(dpy);
    printf("ok\n");
    return 0;
}
